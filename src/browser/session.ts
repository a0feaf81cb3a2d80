import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ServiceError } from '../errors/serviceError.js';
import { Mutex } from './mutex.js';
import type { RingBuffer } from './ringBuffer.js';
import { SessionSignals } from './sessionSignals.js';
import { SessionEvents } from './sessionEvents.js';
import { DownloadStore, type DownloadLimits } from './downloadStore.js';
import type { UrlPolicy } from './urlPolicy.js';
import { withDeadline } from '../errors/deadline.js';
import { SessionNotFoundError, type MissingReason } from './browserErrors.js';
import {
  gotoChecked,
  historyChecked,
  reloadChecked,
  type BlockedEntry,
  type HistoryOutcome,
  type NavigationOutcome,
  type NavigationTarget,
  type WaitUntil,
} from './navigation.js';
import { NetworkTracker, type SettleOptions } from './networkTracker.js';
import type { ConsoleEntry, NetworkEntry, PageErrorEntry } from './signalEntries.js';
import { ariaSnapshotOf, refLocator, SnapshotHistory, type SnapshotEntry } from './pageSnapshot.js';
import type { StoredRead } from './pageRead.js';

/** A page that opens popups without end must not exhaust the browser: past this many, new ones close. */
export const MAX_POPUPS_PER_SESSION = 20;
/** How long session.list waits for a page's title before it answers with the last known one. */
const TITLE_TIMEOUT_MS = 500;
/** Opening a fresh page (after a crash or an evaluate deadline) takes well under a second. */
const REPLACE_PAGE_TIMEOUT_MS = 15_000;
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

export type { ConsoleEntry, NetworkEntry, PageErrorEntry } from './signalEntries.js';

export interface SessionOptions {
  /** Ring buffer sizes. */
  console: number;
  network: number;
  /** How a networkidle wait decides the page has settled (see NetworkTracker). */
  settle: Omit<SettleOptions, 'timeoutMs'>;
  downloads: DownloadLimits;
}

/**
 * One isolated browser session: a BrowserContext with one main page, bounded buffers attached from
 * the moment it exists, and a lock so its calls run one at a time.
 */
export class Session implements NavigationTarget {
  readonly createdAt = new Date();
  lastUsedAt = Date.now();
  page: Page;
  private tracker: NetworkTracker;
  private readonly signals: SessionSignals;
  /** What happened, in order with a seq: an action reports the events since it started. */
  readonly events = new SessionEvents();
  /** The session's downloads, kept on disk until the registry disposes of them when it ends. */
  readonly downloads: DownloadStore;
  readonly console: RingBuffer<ConsoleEntry>;
  readonly pageErrors: RingBuffer<PageErrorEntry>;
  readonly network: RingBuffer<NetworkEntry>;
  private readonly lock = new Mutex();
  private popups = 0;
  private lastTitle = '';
  /** The last few snapshots: refs belong to the newest, `since` diffs compare with older ones. */
  readonly snapshots = new SnapshotHistory();
  /** The last page.text, which a cursor continues; its revision counts the reads of the session. */
  lastRead: StoredRead | undefined;
  /** Counts the main frame's documents: a snapshot's refs hold only in the document it was taken in. */
  document = 0;
  /** True while replacePage opens the new main page: the context reports it as a new page, not a popup. */
  private replacing = false;
  /** Why the session ended; set by the registry. A call queued behind the lock then fails. */
  ended: MissingReason | undefined;
  crashed = false;

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
    this.page = page;
    this.tracker = new NetworkTracker(page);
    this.signals = new SessionSignals(policy, options, () => this.page.mainFrame(), this.events);
    ({ console: this.console, pageErrors: this.pageErrors, network: this.network } = this.signals);
    this.downloads = new DownloadStore(options.downloads, this.events, (type, text) => this.note(type, text));
    if (release === undefined) this.attachContext();
    this.attachPage(page);
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

  /** Runs a call under the session lock; the idle clock counts from the end of the last call. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      this.lastUsedAt = Date.now();
      try {
        if (this.ended !== undefined) throw new SessionNotFoundError(this.id, this.ended);
        if (this.crashed) await this.recoverFromCrash();
        return await work();
      } finally {
        this.lastUsedAt = Date.now();
      }
    });
  }

  private attachContext(): void {
    this.context.on('page', (page) => {
      if (page === this.page || this.replacing) return;
      this.popups++;
      this.signals.popup(page.url());
      if (this.popups > MAX_POPUPS_PER_SESSION) {
        page.close().catch(() => undefined);
        return;
      }
      this.attachPage(page);
    });
  }

  private attachPage(page: Page): void {
    this.signals.attach(page);
    // An attached tab's downloads stay in the user's browser.
    if (this.release === undefined) this.downloads.attach(page);
    page.on('crash', () => {
      if (page !== this.page) return;
      this.crashed = true;
      this.signals.pageError('The page crashed (renderer process died); the next call opens a fresh page.');
    });
    page.on('framenavigated', (frame) => {
      if (page === this.page && frame === page.mainFrame()) this.document++;
    });
    page.on('load', () => {
      if (page === this.page)
        page.title().then(
          (t) => (this.lastTitle = t),
          () => undefined,
        );
    });
  }

  /**
   * Waits until the main page's network has been quiet for the settle window. Unlike Playwright's
   * networkidle (a fixed 500 ms), it ends soon after the last request and ignores requests that can
   * never finish, within bounds; past timeoutMs it fails with the requests still pending.
   */
  settle(timeoutMs: number): Promise<void> {
    return this.tracker.waitForQuiet({ ...this.options.settle, timeoutMs });
  }

  /**
   * The element an action targets: a Playwright selector (its first match), or a ref from this
   * session's last page.snapshot of the current document. Exactly one of the two.
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
    if (ref !== undefined) return refLocator(this.page, this.snapshots.latest(), this.document, ref);
    return this.page.locator(selector ?? '');
  }

  /**
   * Takes a snapshot of the page, or of the subtree a selector or ref names, and makes it the newest
   * of the history: its refs are the ones actions accept from now on.
   */
  async takeSnapshot(
    selector: string | undefined,
    ref: string | undefined,
    timeout: number,
  ): Promise<SnapshotEntry> {
    const whole = selector === undefined && ref === undefined;
    const subtree = whole ? undefined : await this.target(selector, ref);
    const text = await ariaSnapshotOf(this.page, subtree, timeout);
    const scope = whole ? 'page' : ref !== undefined ? `ref ${ref}` : `selector ${selector ?? ''}`;
    return this.snapshots.record(text, this.document, scope);
  }

  /** A line of the service's own in the session's console log (popups, dialogs, recoveries). */
  note(type: string, text: string): void {
    this.signals.note(type, text);
  }

  /** Navigates to a URL inside the allow-list and waits as asked (browser/navigation.ts). */
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

  /** What the allow-list refused since the last call of this; empties the list. */
  takeBlocked(): BlockedEntry[] {
    return this.signals.takeBlocked();
  }

  /** The page title, bounded in time: a frozen page answers with the last known title. */
  async title(): Promise<string> {
    const timedOut = () => new Error('title timeout');
    // Frozen or navigating: the last title seen is the honest answer.
    this.lastTitle = await withDeadline(this.page.title(), TITLE_TIMEOUT_MS, timedOut).catch(
      () => this.lastTitle,
    );
    return this.lastTitle;
  }

  /** Replaces the main page with a fresh one (after a crash, or a page.evaluate past its deadline). */
  async replacePage(): Promise<void> {
    if (this.release !== undefined) {
      // An attached tab is the user's: never close it or open another in their browser.
      this.crashed = false;
      this.note('info', 'The attached tab was left as it is; attach it again if it stays unusable.');
      return;
    }
    const old = this.page;
    this.replacing = true;
    try {
      this.page = await withDeadline(
        this.context.newPage(),
        REPLACE_PAGE_TIMEOUT_MS,
        () => new Error('opening a fresh page timed out'),
      );
    } finally {
      this.replacing = false;
    }
    this.tracker = new NetworkTracker(this.page);
    this.document++;
    this.attachPage(this.page);
    this.crashed = false;
    await old.close({ runBeforeUnload: false }).catch(() => undefined);
  }

  private async recoverFromCrash(): Promise<void> {
    await this.replacePage();
    this.note('info', 'The previous page crashed; a fresh page (about:blank) replaced it.');
  }
}
