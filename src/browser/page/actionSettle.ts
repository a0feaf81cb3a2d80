// An action settles before it answers: it waits for what it started (a navigation of the main
// frame, the requests made while it ran, the short timers its handlers started and the DOM changes
// they made), bounded, then reports what changed. Learnt from Playwright MCP's wait-for-completion,
// without its fixed one-second pause: an action that started nothing answers after one round trip
// to the browser process (browserBarrier.ts) and one to the page (its timers, pageTimers.ts).
import type { Frame, Page, Request } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { browserBarrier } from '../engine/browserBarrier.js';
import { capUrl } from '../engine/pageGuards.js';
import { TIMER_TRACKER_KEY, type PageTimers } from '../engine/pageTimers.js';

/** How often the settle looks at the requests still in flight. */
const SETTLE_POLL_MS = 5;
/** A report names at most this many pending requests. */
const MAX_PENDING_REPORTED = 10;
/**
 * Once the timers an action started have run, the page counts as settled when its DOM has not
 * changed for this long: a handler's timer may render in several steps.
 */
export const DOM_QUIET_MS = 50;
/** How often the page looks at its timers and its DOM while the settle waits for them. */
const PAGE_POLL_MS = 10;
/** Timers the page started this long before the action's start as Node saw it still count as its own (two clocks). */
const ACTION_START_SLACK_MS = 20;
/** How much longer than its own bound the page's answer is waited for before the settle goes on without it. */
const PAGE_ANSWER_MARGIN_MS = 250;

export interface ActionSettleOptions {
  /** The most an action waits for what it started, after it ran (ACTION_SETTLE_MS). */
  maxMs: number;
  /** A request whose response headers came this long ago no longer holds the settle (its body may never end). */
  bodyGraceMs: number;
  /** Reads the page title, bounded (Session.title): the report's title after a navigation. */
  title: () => Promise<string>;
  /**
   * Whether the page still shows the document it showed when the action started; a main-frame
   * navigation that kept it (#fragment, pushState, replaceState) is then not reported as navigated.
   * Absent when that is not known: every main-frame navigation counts.
   */
  sameDocument?: () => Promise<boolean>;
  /**
   * True while the page cannot run a script (a dialog left for dialog.handle holds it): the settle
   * then does not ask the page for its timers.
   */
  held?: () => boolean;
}

export interface Settled<T> {
  result: T;
  /** True when the main frame committed a new document while the action ran or settled (not a same-document navigation, when sameDocument says so). */
  navigated: boolean;
  /** Requests the action started that were still running when the settle ended at maxMs. */
  pending: string[];
  /** The new document's title, when the action navigated. */
  title: string | undefined;
}

interface InFlight {
  url: string;
  responseAt: number | undefined;
}

/**
 * Runs an action on a page and waits, at most `maxMs` after it, for the main-frame navigation it
 * caused to reach DOMContentLoaded, for the requests it started to end, and (in the same document)
 * for the short timers it started to run and what they started in turn.
 */
export async function settleAround<T>(
  page: Page,
  work: () => Promise<T>,
  options: ActionSettleOptions,
): Promise<Settled<T>> {
  const inflight = new Map<Request, InFlight>();
  /** Main-frame navigations while the action ran and settled (new documents and same-document ones). */
  let navigations = 0;
  const onRequest = (r: Request) => inflight.set(r, { url: capUrl(r.url()), responseAt: undefined });
  const onResponse = (r: { request(): Request }) => {
    const entry = inflight.get(r.request());
    if (entry !== undefined) entry.responseAt = Date.now();
  };
  const onDone = (r: Request) => inflight.delete(r);
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) navigations++;
  };
  page.on('request', onRequest);
  page.on('response', onResponse);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  page.on('framenavigated', onNavigated);
  const keptDocument = async () => options.sameDocument !== undefined && (await options.sameDocument());
  try {
    const started = Date.now();
    const result = await work();
    const deadline = Date.now() + options.maxMs;
    // One round trip to the browser: the events of what the action started (a request of its
    // handler, the navigation of a link that turns into a download) arrive before its answer.
    // Measured: without a round trip a click on an attachment link answered before its download
    // was known.
    await browserBarrier(page);
    // A client-side route change is a new URL in the same document: its refs and diff base hold.
    let checked = navigations;
    let newDocument = checked > 0 && !(await keptDocument());
    const settleNetwork = async () => {
      if (navigations !== checked) {
        checked = navigations;
        newDocument = !(await keptDocument());
      }
      if (newDocument) await loaded(page, deadline);
      return inflight.size === 0 ? [] : quiet(inflight, deadline, options.bodyGraceMs);
    };
    let pending = await settleNetwork();
    // A same-document navigation (a hash link, history.back) fires hashchange or popstate as a task
    // the browser queues after it: the app's router runs there, so the settle lets it run first.
    if (navigations > 0 && !newDocument && options.held?.() !== true) await nextTask(page, deadline);
    // What the action's handlers left on short timers (a debounce, a validation 100 ms after keyup)
    // changes this document after its requests: waited for, then what those timers started too.
    if (!newDocument && options.held?.() !== true) {
      const waited = await timersSettled(page, Date.now() - started, deadline);
      if (waited) {
        await browserBarrier(page);
        pending = await settleNetwork();
      }
    }
    if (navigations !== checked) newDocument = !(await keptDocument());
    // The title of the document the action led to; an action that only made requests keeps it.
    return {
      result,
      navigated: newDocument,
      pending,
      title: newDocument ? await options.title() : undefined,
    };
  } finally {
    page.off('request', onRequest);
    page.off('response', onResponse);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
    page.off('framenavigated', onNavigated);
  }
}

/** Lets the page run the tasks already queued (a zero timeout's turn); bounded, never failing the action. */
async function nextTask(page: Page, deadline: number): Promise<void> {
  const left = deadline - Date.now();
  if (left <= 0) return;
  try {
    await withDeadline(
      page.evaluate(() => new Promise<void>((resolve) => setTimeout(resolve, 0))),
      left + PAGE_ANSWER_MARGIN_MS,
      () => new Error('next task deadline'),
    );
  } catch {
    // A page that navigated on, closed or froze: the report says what the page is now.
  }
}

/**
 * Waits, in the page, for the timers the action started (their chains began after `sinceMs` ago) to
 * run and the DOM to be quiet for DOM_QUIET_MS, until the deadline. True when there were such
 * timers; false when there were none, or the page has no tracker (a tab of the user's browser) or
 * could not answer (it navigated on, closed, froze): the report then says what the page is now.
 */
async function timersSettled(page: Page, sinceMs: number, deadline: number): Promise<boolean> {
  const left = deadline - Date.now();
  if (left <= 0) return false;
  const arg = {
    key: TIMER_TRACKER_KEY,
    since: sinceMs + ACTION_START_SLACK_MS,
    maxMs: left,
    quietMs: DOM_QUIET_MS,
    pollMs: PAGE_POLL_MS,
  };
  try {
    return await withDeadline(
      page.evaluate(waitForTimers, arg),
      left + PAGE_ANSWER_MARGIN_MS,
      () => new Error('timer settle deadline'),
    );
  } catch {
    return false;
  }
}

/** Runs in the page (serialised by Playwright): the wait timersSettled describes. */
function waitForTimers(arg: {
  key: string;
  since: number;
  maxMs: number;
  quietMs: number;
  pollMs: number;
}): Promise<boolean> {
  const found: unknown = Reflect.get(window, arg.key);
  if (typeof found !== 'object' || found === null) return Promise.resolve(false);
  const timers = found as PageTimers;
  if (typeof timers.pending !== 'function' || typeof timers.later !== 'function')
    return Promise.resolve(false);
  const start = performance.now();
  const from = start - arg.since;
  if (timers.pending(from) === 0) return Promise.resolve(false);
  let changed = start;
  const observer = new MutationObserver(() => {
    changed = performance.now();
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  return new Promise((resolve) => {
    const look = () => {
      const now = performance.now();
      if (now - start >= arg.maxMs || (timers.pending(from) === 0 && now - changed >= arg.quietMs)) {
        observer.disconnect();
        resolve(true);
      } else timers.later(look, arg.pollMs);
    };
    timers.later(look, arg.pollMs);
  });
}

/** Waits for the new document's DOMContentLoaded until the deadline; a slower page is reported as it is. */
async function loaded(page: Page, deadline: number): Promise<void> {
  const left = deadline - Date.now();
  if (left <= 0) return;
  try {
    await withDeadline(
      page.waitForLoadState('domcontentloaded', { timeout: left }),
      left,
      () => new Error('load state deadline'),
    );
  } catch {
    // Past the deadline, or the page closed: the report says what the page is now, which is the
    // honest answer; the action itself already succeeded.
  }
}

/** Waits until the action's requests ended (or only body-less streams remain); answers what is left at the deadline. */
function quiet(inflight: Map<Request, InFlight>, deadline: number, bodyGraceMs: number): Promise<string[]> {
  const holding = (now: number) =>
    [...inflight.values()].filter((e) => e.responseAt === undefined || now - e.responseAt < bodyGraceMs);
  return new Promise((resolve) => {
    const tick = () => {
      const now = Date.now();
      const busy = holding(now);
      if (busy.length === 0) resolve([]);
      else if (now >= deadline) resolve(busy.slice(0, MAX_PENDING_REPORTED).map((e) => e.url));
      else setTimeout(tick, SETTLE_POLL_MS);
    };
    tick();
  });
}
