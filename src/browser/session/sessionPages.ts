import type { BrowserContext, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { browserTitle } from '../engine/browserBarrier.js';
import { capUrl } from '../engine/pageGuards.js';
import type { PageOpenedEvent } from '../events/sessionEvents.js';
import { MAIN_PAGE_ID, SessionPage } from './sessionPage.js';

/** The browser process's title of the page; the renderer's when the page has no CDP session. */
async function readTitle(page: Page): Promise<string> {
  const title = await browserTitle(page).catch(() => {
    // The CDP session broke (the page is closing, or its target detached): ask the page itself.
    return undefined;
  });
  return title ?? page.title();
}

/** Opening a fresh page (after a crash or an evaluate deadline) takes well under a second. */
const REPLACE_PAGE_TIMEOUT_MS = 15_000;

/**
 * A page that opens popups without end must not exhaust the browser: at most this many pages opened
 * by the session's pages are open at once; past it, new ones close. A page closed frees its slot.
 */
export const MAX_POPUPS_PER_SESSION = 20;
/** How long session.list and pages.list wait for a page's title before answering with the last known one. */
export const LIST_TITLE_TIMEOUT_MS = 500;
/**
 * How long a call that answers with its own page's title (a navigation, an action that navigated,
 * pages.select) waits for it: right after a load the renderer may be busy for seconds on a loaded
 * machine, and a new page's last known title is empty. Past it, the last known title.
 */
export const READ_TITLE_TIMEOUT_MS = 5000;
/** Closing one page of a session (without its beforeunload handlers) is quick even on a busy page. */
const CLOSE_PAGE_TIMEOUT_MS = 10_000;

/** What SessionPages needs of its session. */
export interface PagesHost {
  /** Starts listening to a Playwright page that is (now) the page `owner`. */
  attach(page: Page, owner: SessionPage): void;
  /** A page opened by the session's pages: the "popup opened" line, and the allow-list record. */
  popup(url: string): void;
  /** A page of the session was opened (the `page` event). */
  opened(event: PageOpenedEvent): void;
  /** A page of the session closed (its pending dialog goes with it). */
  closed(pageId: string): void;
  note(type: string, text: string): void;
  /** True while a dialog is open on the page: it cannot answer anything until the dialog closes. */
  frozen(pageId: string): boolean;
}

/** A page of the session as pages.list shows it. */
export interface PageInfo {
  page_id: string;
  url: string;
  title: string;
  active: boolean;
  opener?: string;
}

/**
 * The pages of one session: the main page p1 and the pages its pages opened (popups, window.open,
 * target=_blank), by id, one of them active. Pages the service opens for itself (a fresh main page,
 * axe's helper page) are never among them.
 */
export class SessionPages {
  private readonly pages = new Map<string, SessionPage>();
  private current: SessionPage;
  private count = 0;
  /** Pages the service is opening for itself: the context reports them like popups. */
  private readonly opening = new Set<Promise<Page>>();
  private readonly own = new WeakSet<Page>();

  constructor(
    private readonly context: BrowserContext,
    first: Page,
    private readonly host: PagesHost,
    /** False for an adopted tab: the context is the user's, its other tabs are not this session's. */
    watchContext: boolean,
  ) {
    this.current = this.add(first, undefined);
    if (watchContext)
      context.on('page', (page) => {
        // A page the service is opening for itself is known once its newPage() resolves.
        if (this.opening.size === 0) this.onPopup(page);
        else
          void Promise.allSettled([...this.opening]).then(() => {
            if (!this.own.has(page)) this.onPopup(page);
          });
      });
  }

  get active(): SessionPage {
    return this.current;
  }

  all(): SessionPage[] {
    return [...this.pages.values()];
  }

  /** The session's pages, in the order they opened, with the active one marked. */
  list(): Promise<PageInfo[]> {
    return Promise.all(
      this.all().map(async (p) => ({
        page_id: p.id,
        url: p.page.url(),
        title: await this.titleOf(p),
        active: p === this.current,
        ...(p.opener === undefined ? {} : { opener: p.opener }),
      })),
    );
  }

  /** A page's title, bounded in time: a frozen page answers with the last known title. */
  async titleOf(p: SessionPage, timeoutMs = LIST_TITLE_TIMEOUT_MS): Promise<string> {
    if (this.host.frozen(p.id)) return p.lastTitle;
    const timedOut = () => new Error('title timeout');
    // Frozen or navigating: the last title seen is the honest answer.
    p.lastTitle = await withDeadline(readTitle(p.page), timeoutMs, timedOut).catch(() => p.lastTitle);
    return p.lastTitle;
  }

  /** Makes a page the active one. */
  select(pageId: string): SessionPage {
    this.current = this.byId(pageId);
    return this.current;
  }

  /**
   * Closes one page without its beforeunload handlers. The last page of the session is refused: a
   * session always has a page. Answers the page that is active afterwards.
   */
  async close(pageId: string): Promise<string> {
    const closing = this.byId(pageId);
    if (this.pages.size === 1) {
      throw new ServiceError(
        'INVALID_PARAMS',
        `Page ${pageId} is the last page of this session and cannot be closed: navigate it elsewhere with page.goto, or end the session with session.close.`,
        { errors: [{ path: '/page_id', message: 'is the last page', keyword: 'last', params: {} }] },
      );
    }
    await withDeadline(
      closing.page.close({ runBeforeUnload: false }),
      CLOSE_PAGE_TIMEOUT_MS,
      () =>
        new ServiceError(
          'TIMEOUT',
          `Closing page ${pageId} did not finish within ${CLOSE_PAGE_TIMEOUT_MS} ms.`,
        ),
    );
    this.forget(closing);
    return this.current.id;
  }

  /** A page of the session closed (by pages.close, by itself, or by its opener's script). */
  forget(closed: SessionPage): void {
    if (!this.pages.delete(closed.id)) return;
    this.host.closed(closed.id);
    if (closed !== this.current) return;
    const next =
      (closed.opener === undefined ? undefined : this.pages.get(closed.opener)) ??
      this.pages.get(MAIN_PAGE_ID) ??
      this.all().at(-1);
    // The last page closed by itself: it stays the active one, and the next call replaces it.
    if (next === undefined) this.pages.set(closed.id, closed);
    else this.current = next;
  }

  /**
   * Opens a new blank page of the session (pages.open), counted like the pages its pages open
   * (MAX_POPUPS_PER_SESSION); it does not become active by itself.
   */
  async open(): Promise<SessionPage> {
    if (this.pages.size - 1 >= MAX_POPUPS_PER_SESSION)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The session already has ${MAX_POPUPS_PER_SESSION} pages besides its main page (MAX_POPUPS_PER_SESSION): close one with pages.close first.`,
        { limit: 'MAX_POPUPS_PER_SESSION', max: MAX_POPUPS_PER_SESSION },
      );
    const page = await this.context.newPage();
    // The context's page event makes it a page of the session; it may not have run yet.
    this.onPopup(page);
    const added = this.all().find((p) => p.page === page);
    if (added === undefined) throw new Error('the new page closed as it opened');
    return added;
  }

  /**
   * Opens a page for the service's own use in the session's context: it is not a page of the
   * session, never listed, logged or counted against MAX_POPUPS_PER_SESSION.
   */
  async openOwn(): Promise<Page> {
    const opening = this.context.newPage();
    this.opening.add(opening);
    try {
      const page = await opening;
      this.own.add(page);
      return page;
    } finally {
      this.opening.delete(opening);
    }
  }

  private byId(pageId: string): SessionPage {
    const found = this.pages.get(pageId);
    if (found !== undefined && !found.page.isClosed()) return found;
    throw new ServiceError(
      'INVALID_PARAMS',
      `No page ${pageId} in this session (pages: ${[...this.pages.keys()].join(', ')}): pages.list names them.`,
      {
        errors: [{ path: '/page_id', message: 'is not a page of this session', keyword: 'page', params: {} }],
      },
    );
  }

  /** Puts a fresh Playwright page in place of a page's unusable one (crash, evaluate deadline, closed). */
  replace(owner: SessionPage, fresh: Page): void {
    owner.replace(fresh);
    this.host.closed(owner.id);
    this.pages.set(owner.id, owner);
    this.watch(fresh, owner);
  }

  /**
   * Opens a fresh page in place of a page that is unusable (crashed, closed, stuck past an evaluate
   * deadline), within REPLACE_PAGE_TIMEOUT_MS, at the viewport size the old one had (session.create's
   * viewport or page.setViewport), and closes the old one.
   */
  async renew(owner: SessionPage): Promise<void> {
    const old = owner.page;
    const size = old.viewportSize();
    const fresh = await withDeadline(
      this.openOwn().then(async (page) => {
        if (size !== null) await page.setViewportSize(size);
        return page;
      }),
      REPLACE_PAGE_TIMEOUT_MS,
      () => new Error('opening a fresh page timed out'),
    );
    this.replace(owner, fresh);
    // The old page is being replaced because it is unusable: a failure to close it changes nothing.
    await old.close({ runBeforeUnload: false }).catch(() => undefined);
  }

  /** Makes a Playwright page a page of the session, with the next id; it does not become active. */
  private add(page: Page, opener: string | undefined): SessionPage {
    const added = new SessionPage(`p${++this.count}`, page, opener);
    this.pages.set(added.id, added);
    this.watch(page, added);
    return added;
  }

  private watch(page: Page, owner: SessionPage): void {
    this.host.attach(page, owner);
    page.on('close', () => {
      if (page === owner.page) this.forget(owner);
    });
  }

  /**
   * Popups dealt with so far: opened as a page of the session (its `page` event pushed), or closed
   * over the cap. An action that opened a window waits for it with whenHandled (defineActionMethod).
   */
  get popupsHandled(): number {
    return this.handled;
  }

  private handled = 0;
  /** Actions waiting for the count to reach a number (a Set: each is removed when it resolves). */
  private readonly handledWaiters = new Set<{ target: number; resolve: () => void }>();

  /** Resolves once `target` popups have been dealt with, or after `ms`, whichever comes first. */
  whenHandled(target: number, ms: number): Promise<void> {
    if (this.handled >= target || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        target,
        resolve: () => {
          clearTimeout(timer);
          this.handledWaiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, ms);
      this.handledWaiters.add(waiter);
    });
  }

  private countHandled(): void {
    this.handled++;
    for (const waiter of this.handledWaiters) if (this.handled >= waiter.target) waiter.resolve();
  }

  private onPopup(page: Page): void {
    if (this.own.has(page) || this.all().some((p) => p.page === page)) return;
    if (page.isClosed()) {
      this.countHandled();
      return;
    }
    this.host.popup(page.url());
    if (this.pages.size - 1 >= MAX_POPUPS_PER_SESSION) {
      this.host.note(
        'popup',
        `closed: the session already has ${MAX_POPUPS_PER_SESSION} pages its pages opened`,
      );
      // Closing a page the browser is still opening may fail: it is then gone anyway.
      page.close({ runBeforeUnload: false }).catch(() => undefined);
      this.countHandled();
      return;
    }
    const added = this.add(page, undefined);
    const opener = page.opener().then(
      (by) => this.all().find((p) => p.page === by)?.id,
      // The opener closed meanwhile: the page is still the session's, its opener unknown.
      () => undefined,
    );
    void opener.then((id) => {
      added.opener = id;
      this.host.opened({
        kind: 'page',
        page_id: added.id,
        url: capUrl(page.url()),
        ...(id === undefined ? {} : { opener: id }),
      });
      this.countHandled();
    });
  }
}
