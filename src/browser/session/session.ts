// Room browser/session/: one session's state (pages, dialogs, signals) and the registry of sessions; imports every other room.
// One session: its context, its pages, its lock, and what it records (the event log and its digest,
// the ring buffers, requests, dialogs, downloads, files). Over the 350-line guideline: the class
// is the one place those parts meet; each part already lives in its own module (sessionPages,
// sessionSignals, sessionLog, dialogStalls, downloadStore …), and what is left here is their wiring.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { refusedBeforeRun, ServiceError } from '../../errors/serviceError.js';
import { Mutex } from './mutex.js';
import type { RequestLog } from '../network/requestLog.js';
import type { RingBuffer } from '../events/ringBuffer.js';
import { SessionSignals } from './sessionSignals.js';
import { SessionEvents } from '../events/sessionEvents.js';
import { SessionLog } from '../events/sessionLog.js';
import type { UrlPolicy } from '../network/urlPolicy.js';
import { SessionNotFoundError, SessionQueueFullError, type MissingReason } from '../engine/browserErrors.js';
import {
  gotoChecked,
  historyChecked,
  reloadChecked,
  type BlockedEntry,
  type HistoryOutcome,
  type NavigationOutcome,
  type NavigationTarget,
  type WaitUntil,
} from '../page/navigation.js';
import type { SettleOptions } from '../network/networkTracker.js';
import type { ConsoleEntry, NetworkEntry, PageErrorEntry } from '../events/signalEntries.js';
import {
  ariaSnapshotOf,
  requiredRefs,
  type SnapshotEntry,
  type SnapshotHistory,
} from '../page/pageSnapshot.js';
import type { StoredRead } from '../page/pageRead.js';
import { UNKNOWN_DOCUMENT, type SessionPage } from './sessionPage.js';
import { nameIcons } from '../page/iconNames.js';
import type { Box } from '../page/elementBoxes.js';
import { watchDialogCloses } from './dialogWatch.js';
import { SessionDialogs, type DialogReport } from './sessionDialogs.js';
import { DialogStalls, type StalledOutcome } from './dialogStalls.js';
import { READ_TITLE_TIMEOUT_MS, SessionPages } from './sessionPages.js';
import { DownloadStore, type DownloadLimits } from '../artifacts/downloadStore.js';
import type { ReplayPictures } from '../artifacts/replayPictures.js';
import { SessionFiles } from '../artifacts/sessionFiles.js';
import { preparePage } from '../network/networkConditions.js';

export { LIST_TITLE_TIMEOUT_MS, MAX_POPUPS_PER_SESSION } from './sessionPages.js';

/** Every page event a session (and its NetworkTracker) listens to: removed when an adopted tab is detached. */
const ADOPTED_PAGE_EVENTS = [
  'console',
  'pageerror',
  'response',
  'requestfailed',
  'dialog',
  'crash',
  'load',
  'framenavigated',
  'request',
  'requestfinished',
  'close',
] as const;

export type { ConsoleEntry, NetworkEntry, PageErrorEntry } from '../events/signalEntries.js';
import type { PageBudgetOptions } from '../events/eventBudget.js';

export interface SessionOptions {
  /** Ring buffer sizes, and the requests whose details network.get reads (MAX_NETWORK_DETAILS). */
  console: number;
  network: number;
  requestDetails: number;
  /** Entries the session's event log keeps (MAX_SESSION_EVENTS). */
  events: number;
  /** What each page may record a second, and what happens to a page that keeps exceeding it. */
  budget?: PageBudgetOptions;
  /** How a networkidle wait decides the page has settled (see NetworkTracker). */
  settle: Omit<SettleOptions, 'timeoutMs'>;
  downloads: DownloadLimits;
  /** MAX_QUEUED_CALLS_PER_SESSION: calls that may wait for the lock; past it a call is refused at once. */
  maxQueuedCalls: number;
  /** With remote browser servers: the error a failed call answers when its server went away under it. */
  serverLost?: (session: Session, error: unknown) => Promise<Error | undefined>;
}

/**
 * One isolated browser session: a BrowserContext with its pages (the main page p1 and the popups
 * its pages opened), one of them active, bounded buffers attached from the moment each exists, and
 * a lock so its calls run one at a time.
 */
export class Session implements NavigationTarget {
  readonly createdAt = new Date();
  lastUsedAt = Date.now();
  /** When a call of this session last started or ended (0: none yet): the warm pool yields to calls. */
  lastCallAt = 0;
  private readonly signals: SessionSignals;
  /** Everything the session's pages did, in order with a seq: what pulls with since and streams read. */
  readonly log: SessionLog;
  /** The log's digest for action reports: an action reports the events since it started. */
  readonly events: SessionEvents;
  readonly console: RingBuffer<ConsoleEntry>;
  readonly pageErrors: RingBuffer<PageErrorEntry>;
  readonly network: RingBuffer<NetworkEntry>;
  /** Request ids, and the most recent requests network.get and network.har read. */
  readonly requests: RequestLog;
  /** With replay on (REPLAY, session.create replay): a picture after each call that changed something. */
  replay: ReplayPictures | undefined;
  /** The dialog policy and the dialogs left pending for dialog.handle. */
  readonly dialogs: SessionDialogs;
  /** The session's one temporary directory (downloads, traces) and its downloads: removed when it ends. */
  readonly files: SessionFiles;
  readonly downloads: DownloadStore;
  private readonly lock = new Mutex();
  /** The session's pages, one of them active (pages.list, pages.select, pages.close). */
  readonly pages: SessionPages;
  /** Calls a dialog left for dialog.handle stalls. */
  private readonly stalls: DialogStalls;
  /** Why the session ended; set by the registry. A call queued behind the lock then fails. */
  ended: MissingReason | undefined;

  constructor(
    readonly id: string,
    readonly context: BrowserContext,
    page: Page,
    private readonly policy: UrlPolicy,
    private readonly options: SessionOptions,
    /**
     * Set for a tab adopted from another browser (tabs.attach): closing the session detaches and calls
     * this instead of closing the context, which is the user's (so its other tabs are not popups here).
     */
    readonly release?: () => Promise<void>,
  ) {
    this.log = new SessionLog(options.events);
    this.events = new SessionEvents(undefined, this.log);
    this.signals = new SessionSignals(policy, options, () => this.page.mainFrame(), this.events, this.log);
    ({
      console: this.console,
      pageErrors: this.pageErrors,
      network: this.network,
      requests: this.requests,
    } = this.signals);
    const note = (type: string, text: string): void => this.signals.note(type, text);
    this.dialogs = new SessionDialogs(this.events, note);
    this.files = new SessionFiles(note);
    this.downloads = new DownloadStore(options.downloads, this.events, note, this.files);
    this.stalls = new DialogStalls(this.dialogs, note);
    this.pages = new SessionPages(
      context,
      page,
      {
        attach: (p, owner) => this.attachPage(p, owner),
        popup: (url) => this.signals.popup(url),
        opened: (event) => this.events.push(event),
        closed: (pageId) => {
          this.log.record({ kind: 'pageclosed', page_id: pageId });
          this.dialogs.dropPage(pageId);
        },
        note,
        frozen: (pageId) => this.dialogs.pendingOn(pageId) !== undefined,
      },
      release === undefined,
    );
  }

  /** A tab adopted from the user's own browser (tabs.attach): its context is theirs, not the service's. */
  get attached(): boolean {
    return this.release !== undefined;
  }

  private get active(): SessionPage {
    return this.pages.active;
  }

  /** The active page's id (p1, p2 …). */
  get activeId(): string {
    return this.active.id;
  }

  /** The active page: every page.*, find.*, screenshot and axe call acts on it. */
  get page(): Page {
    return this.active.page;
  }

  /** The active page's snapshots: refs belong to its newest. */
  get snapshots(): SnapshotHistory {
    return this.active.snapshots;
  }

  /** The active page's last page.text, which a cursor continues. */
  get lastRead(): StoredRead | undefined {
    return this.active.lastRead;
  }

  set lastRead(read: StoredRead | undefined) {
    this.active.lastRead = read;
  }

  /** The active page's document count: a snapshot's refs hold only in the document it was taken in. */
  get document(): number {
    return this.active.document;
  }

  /** True while a dialog left for dialog.handle holds the active page: it runs no script until answered. */
  get held(): boolean {
    return this.dialogs.pendingOn(this.active.id) !== undefined;
  }

  /**
   * Taken when an action starts: a check, once it ran, of whether the active page still shows the
   * document it showed then (a same-document navigation keeps it). Undefined when that document was
   * not known without asking the page (it navigated since it was last checked).
   */
  sameDocumentCheck(): (() => Promise<boolean>) | undefined {
    const on = this.active;
    const before = on.knownDocument;
    if (before === undefined) return undefined;
    return async () => (await on.documentId()) === before;
  }

  /** True when the active page's renderer died and the next call replaces it. */
  get crashed(): boolean {
    return this.active.crashed;
  }

  /** An adopted tab is handed back: its page stops feeding this session, then `release` runs. */
  async detach(): Promise<void> {
    // Settled, not all-or-nothing: a tab that is already gone has no listeners left to remove.
    await Promise.allSettled(
      ADOPTED_PAGE_EVENTS.map((event) => this.page.removeAllListeners(event, { behavior: 'ignoreErrors' })),
    );
    await this.release?.();
  }

  /** Calls on this session running or waiting for the lock. */
  get calls(): number {
    return this.lock.size;
  }

  get busy(): boolean {
    return this.lock.busy;
  }

  /**
   * Runs a call under the session lock; the idle clock counts from the end of the last call. A call
   * that cannot end because a dialog waits for dialog.handle on its page answers DIALOG_PENDING and
   * keeps the lock until the dialog is answered; calls made meanwhile answer DIALOG_PENDING at once.
   * At most MAX_QUEUED_CALLS_PER_SESSION calls wait behind the running one: the next is refused.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    const refused = this.stalls.refusal();
    if (refused !== undefined) return Promise.reject(refusedBeforeRun(refused));
    // The lock counts the running call and those waiting behind it.
    if (this.lock.size > this.options.maxQueuedCalls)
      return Promise.reject(
        refusedBeforeRun(new SessionQueueFullError(this.id, this.options.maxQueuedCalls)),
      );
    return new Promise<T>((resolve, reject) => {
      void this.lock.run(async () => {
        this.lastUsedAt = Date.now();
        this.lastCallAt = this.lastUsedAt;
        try {
          if (this.ended !== undefined) throw new SessionNotFoundError(this.id, this.ended);
          if (this.active.crashed || this.active.page.isClosed()) await this.recoverFromCrash();
          await this.stalls.run(this.active.id, work, { resolve, reject });
        } catch (error) {
          // Whatever the call threw is its answer, mapped by dispatch like any handler's error
          // (unless its remote browser server went away under it: then it says so).
          const lost = await this.options.serverLost?.(this, error);
          reject(lost ?? (error instanceof Error ? error : new Error(String(error))));
        } finally {
          this.lastUsedAt = Date.now();
          this.lastCallAt = this.lastUsedAt;
        }
      });
    });
  }

  /**
   * Answers a pending dialog (dialog.handle), then waits up to timeoutMs for the call it stalled, if
   * any, to end or to stop at another dialog. Runs outside the lock: the stalled call holds it.
   */
  async handleDialog(
    accept: boolean,
    promptText: string | undefined,
    pageId: string | undefined,
    timeoutMs: number,
  ): Promise<DialogReport & { stalled: StalledOutcome | null }> {
    this.lastUsedAt = Date.now();
    const report = await this.dialogs.handle(accept, promptText, pageId, this.active.id);
    return { ...report, stalled: await this.stalls.afterAnswer(report.page_id, timeoutMs) };
  }

  /** The listeners of one Playwright page; `owner` is the session page it is (now) the page of. */
  private attachPage(page: Page, owner: SessionPage): void {
    this.signals.attach(page, owner.id);
    preparePage(page, (type, text) => this.signals.note(type, text));
    page.on('dialog', (dialog) => this.dialogs.onDialog(dialog, owner.id));
    // An attached tab's downloads stay in the user's browser.
    if (this.release === undefined) this.downloads.attach(page, owner.id);
    // The person at an attached tab's browser may answer a pending dialog themselves.
    else
      watchDialogCloses(page, (accepted) => this.dialogs.closedElsewhere(owner.id, accepted)).catch(
        (error: unknown) =>
          page.isClosed() ||
          this.signals.note(
            'warning',
            `Dialogs closed in the browser itself are not seen on this page: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
          ),
      );
    owner.track(page, () =>
      this.signals.crash(
        'The page crashed (renderer process died); the next call opens a fresh page.',
        owner.id,
      ),
    );
  }

  /**
   * Waits until the active page's network has been quiet for the settle window. Unlike Playwright's
   * networkidle (a fixed 500 ms), it ends soon after the last request and ignores requests that can
   * never finish, within bounds; past timeoutMs it fails with the requests still pending.
   */
  settle(timeoutMs: number): Promise<void> {
    return this.active.tracker.waitForQuiet({ ...this.options.settle, timeoutMs });
  }

  /** The active page's requests still in flight (a navigation whose load never fired names them). */
  pendingRequests(max: number): string[] {
    return this.active.tracker.pendingUrls(max);
  }

  /**
   * The element an action targets: a Playwright selector (its first match), or a ref from the last
   * page.snapshot of the active page's current document. Exactly one of the two.
   */
  async target(selector: string | undefined, ref: string | undefined): Promise<Locator> {
    if ((selector === undefined) === (ref === undefined)) {
      throw new ServiceError(
        'INVALID_PARAMS',
        'Give exactly one of selector and ref: a Playwright selector, or a ref from page.snapshot.',
        {
          errors: [
            { path: '/', message: 'must have exactly one of selector and ref', keyword: 'oneOf', params: {} },
          ],
        },
      );
    }
    if (ref !== undefined) return this.active.refTarget(ref);
    return this.page.locator(selector ?? '');
  }

  /**
   * Takes a snapshot of the active page, or of the subtree a selector or ref names, and makes it the
   * newest of that page's history: its refs are the ones actions accept from now on.
   */
  async takeSnapshot(
    selector: string | undefined,
    ref: string | undefined,
    timeout: number,
  ): Promise<SnapshotEntry> {
    const whole = selector === undefined && ref === undefined;
    const subtree = whole ? undefined : await this.target(selector, ref);
    const on = this.active;
    const before = await on.documentId();
    const text = on.nameRefs(
      await nameIcons(on.page, await ariaSnapshotOf(on.page, subtree, timeout), timeout),
    );
    // A new document loaded while the snapshot was taken: it may show either, so its refs hold in neither.
    const after = await on.documentId();
    const scope = whole ? 'page' : ref !== undefined ? `ref ${ref}` : `selector ${selector ?? ''}`;
    return on.snapshots.record(text, before === after ? after : UNKNOWN_DOCUMENT, scope);
  }

  /** The active page's newest whole snapshot when it is `revision` and still of its document. */
  keptSnapshot(revision: number): Promise<SnapshotEntry | undefined> {
    return this.active.keptSnapshot(revision);
  }

  /** An answer of the active page's snapshots with the box of each element it names. */
  withBoxes(text: string, timeout: number): Promise<string> {
    return this.active.withBoxes(text, timeout);
  }

  /** The boxes of elements of the active page, by the refs its snapshots name them with. */
  boxes(refs: readonly string[], timeout: number): Promise<Map<string, Box>> {
    return this.active.boxes(refs, timeout);
  }

  /** The refs of the fields the active page marks required, named as its snapshots name refs. */
  async requiredRefs(timeout: number): Promise<Set<string>> {
    const on = this.active;
    return on.nameRefSet(await requiredRefs(on.page, timeout));
  }

  /** A line of the service's own in the session's console log (popups, dialogs, recoveries). */
  note(type: string, text: string): void {
    this.signals.note(type, text);
  }

  /** Navigates to a URL inside the allow-list and waits as asked (browser/page/navigation.ts). */
  goto(url: string, waitUntil: WaitUntil, timeout: number): Promise<NavigationOutcome> {
    return gotoChecked(this, this.policy, url, waitUntil, timeout);
  }

  reload(waitUntil: WaitUntil, timeout: number): Promise<NavigationOutcome> {
    return reloadChecked(this, this.policy, waitUntil, timeout);
  }

  /** One entry back in the page's history, under the allow-list like a navigation. */
  back(waitUntil: WaitUntil, timeout: number): Promise<HistoryOutcome> {
    return historyChecked(this, this.policy, 'back', waitUntil, timeout);
  }

  forward(waitUntil: WaitUntil, timeout: number): Promise<HistoryOutcome> {
    return historyChecked(this, this.policy, 'forward', waitUntil, timeout);
  }

  /** Downloads seen starting before the browser announced them: an action that started one reports it. */
  get downloadsExpected(): number {
    return this.signals.downloadsExpected;
  }

  /** A download is on its way that no page event announces (a click on a download link). */
  expectDownload(): void {
    this.signals.downloadsExpected += 1;
  }

  /** What the allow-list refused since the last call of this; empties the list. */
  takeBlocked(): BlockedEntry[] {
    return this.signals.takeBlocked();
  }

  /** The active page's title: READ_TITLE_TIMEOUT_MS for the caller's own page, less for a listing. */
  title(timeoutMs = READ_TITLE_TIMEOUT_MS): Promise<string> {
    return this.pages.titleOf(this.active, timeoutMs);
  }

  /** Replaces the active page with a fresh one (after a crash, or a page.evaluate past its deadline). */
  async replacePage(): Promise<void> {
    const on = this.active;
    if (this.release !== undefined) {
      // An attached tab is the user's: never close it or open another in their browser.
      on.crashed = false;
      this.note('info', 'The attached tab was left as it is; attach it again if it stays unusable.');
      return;
    }
    await this.pages.renew(on);
  }

  private async recoverFromCrash(): Promise<void> {
    const closed = this.active.page.isClosed();
    await this.replacePage();
    this.note(
      'info',
      closed
        ? 'The last page of the session closed; a fresh page (about:blank) replaced it.'
        : 'The previous page crashed; a fresh page (about:blank) replaced it.',
    );
  }
}
