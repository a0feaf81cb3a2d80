import type { ConsoleMessage, Frame, Page, Request, Response } from 'playwright-core';
import { BLOCKED_HEADER } from '../network/egressProxy.js';
import type { BlockedEntry } from '../page/navigation.js';
import { capUrl, CONSOLE_DROP_MARK, CONSOLE_LOCATION_MARK } from '../engine/pageGuards.js';
import { RequestLog } from '../network/requestLog.js';
import { RingBuffer } from '../events/ringBuffer.js';
import type { SessionEvents } from '../events/sessionEvents.js';
import type { SessionLog } from '../events/sessionLog.js';
import type { ConsoleEntry, NetworkEntry, PageErrorEntry } from '../events/signalEntries.js';
import type { UrlPolicy } from '../network/urlPolicy.js';
import { DEFAULT_PAGE_BUDGET, type PageBudgetOptions } from '../events/eventBudget.js';
import { PageFlood } from './pageFlood.js';

/** How Chromium reports a request cancelled by the page itself (navigating on, closing). */
const ABORTED = /ERR_ABORTED/;
/** The console error Chromium logs for a failed subresource (a requestFailed event reports it). */
const RESOURCE_FAILURE = /^Failed to load resource: /;
/** A message longer than this is cut: one console.log of a megabyte must not fill the buffer. */
const MAX_MESSAGE_CHARS = 4000;

function clip(s: string): string {
  return s.length > MAX_MESSAGE_CHARS
    ? `${s.slice(0, MAX_MESSAGE_CHARS)}… [${s.length - MAX_MESSAGE_CHARS} more chars]`
    : s;
}

/**
 * What a session's pages report, in bounded buffers: console messages (with dialogs, popups and the
 * service's own notes), page errors, network responses and failures, and what the allow-list refused.
 */
export class SessionSignals {
  readonly console: RingBuffer<ConsoleEntry>;
  readonly pageErrors: RingBuffer<PageErrorEntry>;
  readonly network: RingBuffer<NetworkEntry>;
  /** Every request's id, and what network.get and network.har read of the most recent ones. */
  readonly requests: RequestLog;
  /** Requests the allow-list refused since the last `takeBlocked()`: navigation checks read it. */
  private readonly blocked: RingBuffer<BlockedEntry>;
  /** Documents answered as attachments: Chromium aborts them (ERR_ABORTED) as it hands them to the download. */
  private readonly attachments = new WeakSet<Request>();
  /**
   * Downloads the session's pages were seen to start before the browser announced them: document
   * responses that were attachments, and clicks on download links (expectDownload). An action
   * that raised it waits for its download.
   */
  downloadsExpected = 0;
  /** What each page may record a second (PAGE_EVENT_RATE …): past it, entries are dropped and counted. */
  private readonly budget: PageBudgetOptions;

  constructor(
    private readonly policy: UrlPolicy,
    /** Ring buffer sizes, and the requests whose details are kept (MAX_NETWORK_DETAILS). */
    sizes: { console: number; network: number; requestDetails: number; budget?: PageBudgetOptions },
    /** The session's main frame now: a blocked request there fails the navigation in progress. */
    private readonly mainFrame: () => Frame,
    /** The action report's digest: errors and failures are also recorded there. */
    private readonly events: SessionEvents,
    /** The session's event log: every kind is recorded there first, and the buffers keep its seq. */
    private readonly log: SessionLog,
  ) {
    this.budget = sizes.budget ?? DEFAULT_PAGE_BUDGET;
    this.console = new RingBuffer(sizes.console);
    this.pageErrors = new RingBuffer(sizes.console);
    this.network = new RingBuffer(sizes.network);
    this.blocked = new RingBuffer(sizes.network);
    this.requests = new RequestLog(sizes.requestDetails);
  }

  /**
   * Starts recording a page of the session (its main page or a popup, `pageId`); its dialogs are
   * SessionDialogs'. The request listeners only note an id and a reference: nothing is asked of the browser.
   */
  attach(page: Page, pageId?: string): void {
    const flood = new PageFlood(page, this.budget, (type, text) => this.note(type, text));
    page.on('request', (r) => this.onRequest(r, pageId, flood.admit('network')));
    page.on('requestfinished', (r) => this.requests.finished(r));
    page.on('console', (m) => {
      const report = m.type() === 'warning' && m.text().startsWith(CONSOLE_DROP_MARK);
      if (flood.admit(report ? 'dropReport' : 'console')) this.onConsole(m, pageId);
    });
    page.on('pageerror', (error) => {
      if (flood.admit('pageerror'))
        this.pageError(
          clip(error.message),
          error.stack === undefined ? undefined : clip(error.stack),
          pageId,
        );
    });
    page.on('response', (r) => this.onResponse(r, pageId, flood.admit('network')));
    page.on('requestfailed', (r) => this.onRequestFailed(r, pageId, flood.admit('network')));
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && flood.admit('navigation'))
        this.log.record({ kind: 'navigation', url: capUrl(frame.url()), page_id: pageId });
    });
  }

  /** A line of the service's own in the console log (popups, dialogs, recoveries). */
  note(type: string, text: string): void {
    const seq = this.log.record({ kind: 'console', level: type, text: clip(text), source: 'service' });
    this.console.push({ seq, type, text, timestamp: new Date().toISOString() });
  }

  pageError(message: string, stack?: string, pageId?: string): void {
    const seq = this.log.record({ kind: 'pageerror', message, stack, page_id: pageId });
    this.pageErrors.push({ seq, message, stack, timestamp: new Date().toISOString() });
    this.events.push({ kind: 'consoleError', source: 'pageerror', text: message });
  }

  /** The renderer of a page died: a crash entry, and a page error as before the log existed. */
  crash(message: string, pageId?: string): void {
    const seq = this.log.record({ kind: 'crash', message, page_id: pageId });
    this.pageErrors.push({ seq, message, timestamp: new Date().toISOString() });
    this.events.push({ kind: 'consoleError', source: 'pageerror', text: message });
  }

  /**
   * A popup opened. Playwright reports it only once its first document committed, after its
   * listeners could have seen the request: a popup the allow-list refused is recorded from its URL.
   */
  popup(fullUrl: string): void {
    const url = capUrl(fullUrl);
    this.note('popup', `popup opened: ${url}`);
    const verdict = this.policy.checkRequest(fullUrl);
    if (verdict.allowed) return;
    const failure = 'blocked by the allow-list';
    const id = this.requests.unseen({ url, method: 'GET', resourceType: 'document', failure });
    const seq = this.log.record({
      kind: 'requestfailed',
      request_id: id,
      url,
      method: 'GET',
      resourceType: 'document',
      failure,
      blocked: true,
    });
    this.network.push({
      seq,
      id,
      url,
      status: null,
      method: 'GET',
      resourceType: 'document',
      failure,
      blocked: true,
      timestamp: new Date().toISOString(),
    });
    this.blocked.push({ url, reason: verdict.reason, resourceType: 'document', mainFrame: false });
  }

  /** What the allow-list refused since the last call of this; empties the list. */
  takeBlocked(): BlockedEntry[] {
    return this.blocked.drain().items;
  }

  /** `recorded`: whether the page's budget admits its log entry (the request is tracked either way). */
  private onRequest(request: Request, pageId: string | undefined, recorded: boolean): void {
    this.requests.seen(request, pageId);
    if (!recorded) return;
    this.log.record({
      kind: 'request',
      request_id: this.requests.idOf(request),
      url: capUrl(request.url()),
      method: request.method(),
      resourceType: request.resourceType(),
      page_id: pageId,
    });
  }

  private onConsole(message: ConsoleMessage, pageId: string | undefined): void {
    const { text: said, at } = calledFrom(message.text());
    const loc = message.location();
    const text = clip(said);
    // Chromium's own "Failed to load resource" line repeats a failed request, which is its own event.
    if (message.type() === 'error' && !RESOURCE_FAILURE.test(text))
      this.events.push({ kind: 'consoleError', source: 'console', text });
    const location =
      at !== undefined
        ? `${capUrl(at.url)}:${at.line}:${at.column}`
        : loc.url
          ? `${capUrl(loc.url)}:${loc.lineNumber}:${loc.columnNumber}`
          : undefined;
    const seq = this.log.record({ kind: 'console', level: message.type(), text, location, page_id: pageId });
    this.console.push({ seq, type: message.type(), text, location, timestamp: new Date().toISOString() });
  }

  private onResponse(response: Response, pageId: string | undefined, recorded: boolean): void {
    const request = response.request();
    const headers = response.headers();
    const blocked = headers[BLOCKED_HEADER] === '1';
    if (/^\s*attachment/i.test(headers['content-disposition'] ?? '')) {
      this.attachments.add(request);
      // Only a document becomes a download: an XHR or image answered as an attachment (JSON APIs
      // do it against XSSI) must not make the action wait for a download that never comes.
      if (request.isNavigationRequest()) this.downloadsExpected += 1;
    }
    const id = this.requests.idOf(request);
    const entry = {
      id,
      url: capUrl(request.url()),
      status: response.status(),
      method: request.method(),
      resourceType: request.resourceType(),
      ...(blocked ? { blocked: true, failure: 'blocked by the allow-list' } : {}),
    };
    if (recorded) {
      const { id: requestId, ...fields } = entry;
      const seq = this.log.record({ kind: 'response', request_id: requestId, ...fields, page_id: pageId });
      this.network.push({ seq, ...entry, timestamp: new Date().toISOString() });
    }
    if (blocked)
      this.recordBlocked(
        request,
        this.policy.resolvedRefusals.reasonFor(request.url()) ?? 'outside the allow-list (ALLOW_HOST_REGEX)',
      );
    if (blocked || response.status() >= 400)
      this.pushRequestFailed(request, blocked ? 'blocked by the allow-list' : `HTTP ${response.status()}`);
  }

  private onRequestFailed(request: Request, pageId: string | undefined, recorded: boolean): void {
    const failure = request.failure()?.errorText ?? 'failed';
    // A download, not a failure: its response (status 200) is already in the network buffer.
    if (this.attachments.has(request) && ABORTED.test(failure)) return;
    const verdict = this.policy.checkRequest(request.url());
    // An allowed URL whose host the proxy refused once resolved (an https tunnel fails in Chromium
    // without the proxy's answer): blocked too, for the reason the proxy gave.
    const refusal = verdict.allowed ? this.policy.resolvedRefusals.reasonFor(request.url()) : verdict.reason;
    const blocked = refusal !== undefined;
    // A request the page itself cancelled (it navigated on) is not a failure an agent must act on.
    const reported = blocked ? `blocked by the allow-list (${failure})` : failure;
    if (blocked || !ABORTED.test(failure)) this.pushRequestFailed(request, reported);
    const entry = {
      id: this.requests.idOf(request),
      url: capUrl(request.url()),
      status: null,
      method: request.method(),
      resourceType: request.resourceType(),
      failure: reported,
      ...(blocked ? { blocked: true } : {}),
    };
    if (recorded) {
      const { id: requestId, status: _status, ...fields } = entry;
      const seq = this.log.record({
        kind: 'requestfailed',
        request_id: requestId,
        ...fields,
        page_id: pageId,
      });
      this.network.push({ seq, ...entry, timestamp: new Date().toISOString() });
    }
    // A request of an outside URL cancelled because the page moved on (ERR_ABORTED) says nothing
    // about the navigation in progress: it must not fail it.
    if (refusal !== undefined && !ABORTED.test(failure)) this.recordBlocked(request, refusal);
  }

  /** A requestFailed event of the action report: the request, and why it failed (status, error, allow-list). */
  private pushRequestFailed(request: Request, failure: string): void {
    this.events.push({
      kind: 'requestFailed',
      request_id: this.requests.idOf(request),
      url: capUrl(request.url()),
      method: request.method(),
      resourceType: request.resourceType(),
      failure,
    });
  }

  private recordBlocked(request: Request, reason: string): void {
    let mainFrame: boolean;
    try {
      mainFrame = request.isNavigationRequest() && request.frame() === this.mainFrame();
    } catch {
      // A service-worker request has no frame: it is not the main frame.
      mainFrame = false;
    }
    this.blocked.push({
      url: capUrl(request.url()),
      reason,
      resourceType: request.resourceType(),
      mainFrame,
    });
  }
}

/** The console text without the location the page's console wrapper added to it, and that location. */
export function calledFrom(text: string): {
  text: string;
  at?: { url: string; line: number; column: number };
} {
  const mark = text.lastIndexOf(CONSOLE_LOCATION_MARK);
  if (mark === -1) return { text };
  const found = /^(.+):(\d+):(\d+)$/.exec(text.slice(mark + CONSOLE_LOCATION_MARK.length));
  if (found === null) return { text };
  // The wrapper adds it as a last argument: the text joins arguments with a space.
  const said = text.slice(0, mark).replace(/ $/, '');
  return { text: said, at: { url: found[1] ?? '', line: Number(found[2]), column: Number(found[3]) } };
}
