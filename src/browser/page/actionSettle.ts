// An action settles before it answers: it waits for what it started (a navigation of the main
// frame, the requests made while it ran), bounded, then reports what changed. Learnt from Playwright
// MCP's wait-for-completion, without its fixed one-second pause: an action that started nothing
// answers after one round trip to the browser process (browserBarrier.ts).
import type { Frame, Page, Request } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { browserBarrier } from '../engine/browserBarrier.js';
import { capUrl } from '../engine/pageGuards.js';

/** How often the settle looks at the requests still in flight. */
const SETTLE_POLL_MS = 5;
/** A report names at most this many pending requests. */
const MAX_PENDING_REPORTED = 10;

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
 * caused to reach DOMContentLoaded and for the requests it started to end.
 */
export async function settleAround<T>(
  page: Page,
  work: () => Promise<T>,
  options: ActionSettleOptions,
): Promise<Settled<T>> {
  const inflight = new Map<Request, InFlight>();
  let navigated = false;
  const onRequest = (r: Request) => inflight.set(r, { url: capUrl(r.url()), responseAt: undefined });
  const onResponse = (r: { request(): Request }) => {
    const entry = inflight.get(r.request());
    if (entry !== undefined) entry.responseAt = Date.now();
  };
  const onDone = (r: Request) => inflight.delete(r);
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) navigated = true;
  };
  page.on('request', onRequest);
  page.on('response', onResponse);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  page.on('framenavigated', onNavigated);
  try {
    const result = await work();
    const deadline = Date.now() + options.maxMs;
    // One round trip to the browser: the events of what the action started (a request of its
    // handler, the navigation of a link that turns into a download) arrive before its answer.
    // Measured: without a round trip a click on an attachment link answered before its download
    // was known.
    await browserBarrier(page);
    if (!navigated && inflight.size === 0) return { result, navigated, pending: [], title: undefined };
    if (navigated) await loaded(page, deadline);
    const pending = await quiet(inflight, deadline, options.bodyGraceMs);
    // A client-side route change is a new URL in the same document: its refs and diff base hold.
    if (navigated && options.sameDocument !== undefined && (await options.sameDocument())) navigated = false;
    // The title of the document the action led to; an action that only made requests keeps it.
    return { result, navigated, pending, title: navigated ? await options.title() : undefined };
  } finally {
    page.off('request', onRequest);
    page.off('response', onResponse);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
    page.off('framenavigated', onNavigated);
  }
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
