// An action method: a session method whose answer says what the action changed. The handler acts;
// this wrapper settles the page around it (browser/page/actionSettle.ts) and adds the report: the URL if
// it changed, the title, navigated: true when a navigation happened, what was still loading, and the session
// events since the action began (console errors, failed requests, dialogs, downloads, new pages),
// plus with observe: true the snapshot diff since the last snapshot.
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { settleAround, type ActionSettleOptions } from '../browser/page/actionSettle.js';
import type { Config } from '../config/config.js';
import { windowOpens } from '../browser/engine/browserBarrier.js';
import type { Page } from 'playwright-core';
import type { Session } from '../browser/session/session.js';
import { CLOSED } from '../errors/mapError.js';
import type { SessionEvent } from '../browser/events/sessionEvents.js';
import type { MethodSpec } from '../rpc/defineMethod.js';
import { defineSessionMethod, type ServiceMethod, type SessionMethodContext } from './defineSessionMethod.js';
import { ACTION_TIMEOUT_MS, Ok } from './params.js';
import { observeChanges, ObservedSchema } from './page/pageSnapshot.js';
import { withTargetErrors } from './page/targetFailure.js';

/** A report lists at most this many events of one kind, then says how many more there were. */
export const MAX_REPORTED_EVENTS = 10;
/**
 * The most an action waits for a window it opened to become a page of the session: Playwright
 * reports a popup once it is set up (~10-100 ms); a window the browser never opens is not waited for
 * longer than this.
 */
const MAX_POPUP_WAIT_MS = 1000;
/** A console error's text in a report is cut here (logs.pull has the whole message). */
const MAX_REPORTED_TEXT = 500;
/**
 * An action whose page closes under it (window.close() in the page's own handler) waits this long
 * for Playwright's close event before its error is taken for a failure.
 */
const SELF_CLOSE_WAIT_MS = 1000;

const Strings = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const Records = (description: string) =>
  Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { description }));

/** What every action answers besides its own result. */
export const ActionReport = {
  navigated: Type.Optional(
    Type.Literal(true, {
      description:
        'Present (true) only when the main frame loaded a new document: an action that did not navigate leaves it out.',
    }),
  ),
  title: Type.Optional(Type.String({ description: "The new document's title, when the action navigated." })),
  url: Type.Optional(Type.String({ description: 'The page URL, only when the action changed it.' })),
  pending: Strings(
    'Requests the action started that were still running when the settle ended (ACTION_SETTLE_MS).',
  ),
  consoleErrors: Strings('console.error messages and uncaught page errors since the action began.'),
  failedRequests: Records(
    'Requests that failed since the action began: request_id (network.get), url, method, resourceType, failure (HTTP 4xx/5xx, net::ERR_…, the allow-list).',
  ),
  dialogs: Records('Dialogs the action caused: type, message, outcome (accepted, dismissed or pending).'),
  downloads: Records('Downloads the action caused: download_id, name, bytes, mime, state (downloads.get).'),
  pages: Records('Pages the action opened (popups, target=_blank): page_id, url (page.select).'),
  closed: Type.Optional(
    Type.Boolean({
      description:
        'True when the page the action ran on closed itself (window.close() in its handler): another page of the session is active now (pages.list).',
    }),
  ),
  more: Type.Optional(
    Type.Record(Type.String(), Type.Integer(), {
      description: `Per kind above, how many events were left out past ${MAX_REPORTED_EVENTS}, or dropped from the session's log.`,
    }),
  ),
  observed: Type.Optional(ObservedSchema),
};

const observeParam = Type.Boolean({
  default: false,
  description:
    'Also answer the snapshot diff since the last page.snapshot (observed): what the action changed on the page, with refs to act on next.',
});

type Report = Static<TObject<typeof ActionReport>>;

const KINDS = {
  consoleError: 'consoleErrors',
  requestFailed: 'failedRequests',
  dialog: 'dialogs',
  download: 'downloads',
  page: 'pages',
} as const;

/** The session events since an action began, grouped per kind, each kind capped. */
function reportEvents(events: SessionEvent[], dropped: number): Partial<Report> {
  const grouped: Record<string, unknown[]> = {};
  const more: Record<string, number> = {};
  for (const event of events) {
    const key = KINDS[event.kind];
    const list = (grouped[key] ??= []);
    if (list.length >= MAX_REPORTED_EVENTS) {
      more[key] = (more[key] ?? 0) + 1;
      continue;
    }
    // The report groups by kind; seq and time are the log's, not the action's.
    const { kind: _kind, seq: _seq, timestamp: _timestamp, ...fields } = event;
    list.push(event.kind === 'consoleError' ? event.text.slice(0, MAX_REPORTED_TEXT) : fields);
  }
  if (dropped > 0) more.dropped = dropped;
  return { ...(grouped as Partial<Report>), ...(Object.keys(more).length > 0 ? { more } : {}) };
}

/** How an action of `session` settles (ACTION_SETTLE_MS, SETTLE_BODY_GRACE_MS). */
export function actionSettleOptions(
  session: Session,
  config: Config,
  sameDocument?: () => Promise<boolean>,
): ActionSettleOptions {
  return {
    maxMs: config.actionSettleMs,
    bodyGraceMs: config.settleBodyGraceMs,
    title: () => session.title(),
    held: () => session.held,
    ...(sameDocument === undefined ? {} : { sameDocument }),
  };
}

/** Runs an action on the session's page, settles, and answers its result with the report. */
export async function actAndReport<T extends object>(
  session: Session,
  ctx: SessionMethodContext,
  observe: boolean,
  timeout: number,
  work: () => Promise<T>,
  selfClosed?: T,
): Promise<T & Report> {
  const { config } = ctx.services;
  const mark = session.events.mark();
  const downloads = session.downloads.mark();
  const expected = session.downloadsExpected;
  const page = session.page;
  const opening = windowOpens(page);
  const popups = session.pages.popupsHandled;
  const before = session.page.url();
  const sameDocument = session.sameDocumentCheck();
  const settleEnds = () => Date.now() + config.actionSettleMs;
  let deadline = Number.POSITIVE_INFINITY;
  let closed = false;
  const settled = await settleAround(
    page,
    async () => {
      let result: T;
      try {
        result = await work();
      } catch (error) {
        if (selfClosed === undefined || !(await closedItself(session, page, error))) throw error;
        closed = true;
        result = selfClosed;
      }
      deadline = settleEnds();
      return result;
    },
    actionSettleOptions(session, config, sameDocument),
  );
  // A download the action started is reported once it ended (saved or refused), within the settle.
  // An attachment's response, or a click on a download link, can come before the browser announces
  // its download: wait for that too.
  if (session.downloadsExpected > expected)
    await session.downloads.firstSince(downloads, deadline - Date.now());
  await session.downloads.settledSince(downloads, deadline - Date.now());
  // A window it opened (a popup, a target=_blank link) is reported once it is a page of the session.
  const opened = windowOpens(page) - opening;
  if (opened > 0)
    await session.pages.whenHandled(popups + opened, Math.min(deadline - Date.now(), MAX_POPUP_WAIT_MS));
  const { events, dropped } = session.events.since(mark);
  const url = session.page.url();
  return {
    ...settled.result,
    ...(settled.navigated ? { navigated: true as const } : {}),
    ...(settled.title === undefined ? {} : { title: settled.title }),
    ...(url !== before ? { url } : {}),
    ...(settled.pending.length > 0 ? { pending: settled.pending } : {}),
    ...(closed || page.isClosed() ? { closed: true } : {}),
    ...reportEvents(events, dropped),
    ...(observe ? { observed: await observeChanges(session, timeout) } : {}),
  };
}

/**
 * Whether an action's error is its page closing itself: the browser may close a page whose handler
 * called window.close() before it acknowledges the input that ran the handler, so Playwright answers
 * the action with its page-closed error although the action did what it was asked. The session is
 * still open and has another page; a page that only crashed is not closed.
 */
async function closedItself(session: Session, page: Page, error: unknown): Promise<boolean> {
  if (!(error instanceof Error) || !CLOSED.test(error.message) || session.files.ended) return false;
  if (!page.isClosed())
    await page.waitForEvent('close', { timeout: SELF_CLOSE_WAIT_MS }).catch(() => undefined);
  return page.isClosed() && !session.files.ended && !session.page.isClosed();
}

/**
 * A session method that acts on the page: `observe` is added to its params, and its result gains
 * the report. The handler's own timeout param bounds the action (and the observed snapshot); the
 * settle after it is bounded by ACTION_SETTLE_MS.
 */
export function defineActionMethod<P extends TProperties, R extends TObject>(
  spec: Omit<MethodSpec<P, R, SessionMethodContext>, 'logFields'> & {
    /**
     * The answer when the action's page closed itself while it ran, for these params (absent: the
     * close is an error). An action answering only ok has `{ ok: true }` without saying.
     */
    selfClosed?: (params: Static<TObject<P>>) => Static<R> | undefined;
  },
): ServiceMethod {
  const { selfClosed: selfClosedFor, ...methodSpec } = spec;
  return defineSessionMethod({
    ...methodSpec,
    params: { ...spec.params, observe: observeParam },
    result: Type.Object({ ...spec.result.properties, ...ActionReport }),
    handler: (validated, ctx) => {
      // Validated against spec.params plus observe: what is left is the action's own params.
      const { observe, ...own } = validated as unknown as { observe: boolean } & Record<string, unknown>;
      const params = own as unknown as Static<TObject<P>>;
      const timeout = 'timeout' in own && typeof own.timeout === 'number' ? own.timeout : ACTION_TIMEOUT_MS;
      // A target that matched several elements, none, or one that was not actionable is said so.
      // An action answering only ok did its work when its page closed itself (closedItself).
      const result: TObject = spec.result;
      const selfClosed =
        selfClosedFor !== undefined
          ? selfClosedFor(params)
          : result === Ok
            ? ({ ok: true } as Static<R>)
            : undefined;
      return actAndReport(
        ctx.session,
        ctx,
        observe,
        timeout,
        () => withTargetErrors(ctx.session, spec.name, own, () => spec.handler(params, ctx)),
        selfClosed,
      );
    },
  });
}
