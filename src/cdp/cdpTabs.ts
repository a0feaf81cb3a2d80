// Past ~300 lines: the one CDP connection, the pages found on it and the sessions on its tabs are
// one state every tabs.* call reads and changes; who owns a tab is apart, in tabOwners.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { DeadlineError, withDeadline } from '../errors/deadline.js';
import type { SessionCaller } from '../browser/engine/sessionOwners.js';
import type { UrlPolicy } from '../browser/network/urlPolicy.js';
import type { Logger } from '../observability/logger.js';
import { guardTab } from './tabGuard.js';
import { CdpUnavailableError, TabCloseError, TabNotFoundError } from './cdpErrors.js';
import { TabOwners } from './tabOwners.js';

/**
 * A tab made with Target.createTarget reaches Playwright a moment later, and a closed one leaves the
 * target list a moment later: tabs.attach and tabs.close look again every pollMs, within a bound.
 */
const TAB_WAIT = {
  pollMs: 50,
  /** How long tabs.attach waits for the tab's page to become reachable before it gives up. */
  appearMs: 5000,
  /** How long tabs.close waits for a closed tab to leave the target list (at most half the CDP deadline). */
  closeMs: 5000,
} as const;

export interface TabInfo {
  tabId: string;
  url: string;
  title: string;
  /** The session attached to the tab (tabs.attach), or null. */
  session_id: string | null;
}

/** A tab's Playwright page, for tabs.attach to turn into a session. */
export interface TabPage {
  tabId: string;
  context: BrowserContext;
  page: Page;
}

export interface CdpTabsOptions {
  /** CDP_URL: http(s):// of a Chrome started with --remote-debugging-port, or its ws(s):// endpoint. */
  cdpUrl: string | undefined;
  /** Bound on connectOverCDP (the seed's WebSocket hang must end in an error, not a wait). */
  connectTimeoutMs: number;
  /** Bound on every CDP command (open, close, list). */
  commandTimeoutMs: number;
  /** The allow-list every tab the service opens or attaches is held to (guardTab). */
  policy: UrlPolicy;
  logger: Logger;
}

/** The first line of a Playwright error, without its call log. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).replace(/^browserType\.connectOverCDP:\s*/, '');
}

/**
 * The tabs of an existing Chrome (CDP_URL), over one Playwright connectOverCDP connection made on
 * first use and remade after it drops. Tabs are CDP page targets, named by their target id. Seed 000
 * opened a fresh WebSocket per command and hung on Target.createTarget; here one connection carries
 * every command and each has a deadline. Every call names its caller: a tab the service opened or
 * attached is its caller's (TabOwners), and another caller is answered as if it did not exist.
 */
export class CdpTabs {
  private browser: Browser | undefined;
  private connecting: Promise<Browser> | undefined;
  private readonly targetIds = new WeakMap<Page, string>();
  /** Pages guardTab has been installed on (over this connection; a new one starts unguarded). */
  private readonly guarded = new WeakMap<Page, Promise<void>>();
  /** tabId → id of the session attached to it. */
  private readonly sessions = new Map<string, string>();
  private readonly attaching = new Map<string, Promise<string>>();
  /** Who opened or attached each tab; outlives a dropped connection, as target ids do. */
  private readonly owners = new TabOwners();
  private closed = false;

  constructor(private readonly options: CdpTabsOptions) {}

  /** How many tabs have an owner (tests read it: no more than the tabs that exist). */
  get ownedTabs(): number {
    return this.owners.size;
  }

  /** The tabs `caller` may see: those nobody owns and its own (every tab for an admin). */
  async list(caller: SessionCaller): Promise<TabInfo[]> {
    const mark = this.owners.mark();
    const targets = await this.command('tabs.list', (cdp) => cdp.send('Target.getTargets'));
    const pages = targets.targetInfos.filter((t) => t.type === 'page');
    // The owners of tabs that closed are forgotten here, whoever closed them.
    this.owners.retain(new Set(pages.map((t) => t.targetId)), mark);
    return pages
      .filter((t) => this.owners.reachable(t.targetId, caller))
      .map((t) => ({
        tabId: t.targetId,
        url: t.url,
        title: t.title,
        session_id: this.sessions.get(t.targetId) ?? null,
      }));
  }

  /**
   * Opens a tab on the URL (the caller checked it against the allow-list) and returns its id once
   * its document loaded (DOMContentLoaded, bounded). The tab starts on about:blank and is guarded
   * before it navigates, so the allow-list holds from its first request. It is the caller's from
   * the moment the browser answers, before any other call can list it.
   */
  async open(url: string, background: boolean, caller: SessionCaller): Promise<string> {
    const targetId = await this.command('tabs.open', async (cdp) => {
      const created = await cdp.send('Target.createTarget', { url: 'about:blank', background });
      this.owners.assign(created.targetId, caller.id);
      return created.targetId;
    });
    const { page } = await this.page(targetId, 'tabs.open', caller);
    await this.guard(page);
    if (url !== 'about:blank') {
      await page.goto(url, { waitUntil: 'commit', timeout: this.options.commandTimeoutMs });
      // The tab is answered once its document is there, so a call on it next (tabs.attach, then a
      // reload) does not meet a page still committing; a page slower than that is answered as it is.
      await page
        .waitForLoadState('domcontentloaded', { timeout: this.options.commandTimeoutMs })
        .catch((error: unknown) =>
          this.options.logger.debug({ err: error, targetId }, 'a new CDP tab did not load in time'),
        );
    }
    return targetId;
  }

  /** Installs guardTab on a page once; concurrent callers share the one installation. */
  private guard(page: Page): Promise<void> {
    let installed = this.guarded.get(page);
    if (installed === undefined) {
      installed = guardTab(page, this.options.policy);
      this.guarded.set(page, installed);
      // A popup is a page of its own, without the routes: guard it too (its first request may pass).
      page.on('popup', (popup) => {
        this.guard(popup).catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'could not guard a popup of a CDP tab'),
        );
      });
      // A failed installation is retried by the next caller.
      installed.catch(() => this.guarded.delete(page));
    }
    return installed;
  }

  /**
   * Closes a tab and returns once the browser no longer lists it: Target.closeTarget answers before
   * the target is destroyed, and a caller listing tabs right after must not still see it. A tab
   * that stays (its page cancelled the unload) fails the call without touching the connection.
   * Another caller's tab is refused as a tab that does not exist, so its session never ends here.
   */
  async closeTab(tabId: string, caller: SessionCaller): Promise<void> {
    await this.requireTab(tabId, caller);
    // Inside the command deadline, so a slow close is this call's failure, not a dead connection.
    const waitMs = Math.min(TAB_WAIT.closeMs, Math.floor(this.options.commandTimeoutMs / 2));
    const outcome = await this.command('tabs.close', async (cdp) => {
      const { success } = await cdp.send('Target.closeTarget', { targetId: tabId });
      if (!success) return 'refused';
      const until = Date.now() + waitMs;
      for (;;) {
        const { targetInfos } = await cdp.send('Target.getTargets');
        if (!targetInfos.some((t) => t.targetId === tabId)) return 'closed';
        if (Date.now() >= until) return 'still open';
        await sleep(TAB_WAIT.pollMs);
      }
    });
    if (outcome === 'refused') throw new TabCloseError(tabId, 'the browser refused to close it');
    if (outcome === 'still open')
      throw new TabCloseError(tabId, `it was still open ${waitMs} ms after the close (a beforeunload?)`);
    this.owners.forget(tabId);
  }

  /**
   * The session on a tab, made once: concurrent attaches of one tab share it, and a tab whose
   * session is still live (`live`) gets the same one back. `adopt` turns the page into a session.
   * A tab nobody owns becomes the caller's (until it closes); another caller's tab is refused as
   * one that does not exist, and of two callers attaching a tab nobody owns at once, one gets it.
   */
  async attach(
    tabId: string,
    caller: SessionCaller,
    adopt: (tab: TabPage) => Promise<string>,
    live: (sessionId: string) => boolean,
    /** Ends a session that was made after the deadline had already failed the call. */
    undo: (sessionId: string) => Promise<void>,
  ): Promise<string> {
    await this.requireTab(tabId, caller);
    // Taken right after the check, with nothing awaited between: a second caller finds it taken.
    const claim = this.owners.claim(tabId, caller);
    if (claim === 'refused') throw new TabNotFoundError(tabId);
    const existing = this.sessions.get(tabId);
    if (existing !== undefined && live(existing)) return existing;
    let pending = this.attaching.get(tabId);
    if (pending === undefined) {
      // Finding the page, routing it and adopting it: each step talks to the browser, so all are bounded.
      const timeoutMs = TAB_WAIT.appearMs + this.options.commandTimeoutMs;
      let timedOut = false;
      const work = (async () => {
        const tab = await this.page(tabId, 'tabs.attach', caller);
        await this.guard(tab.page);
        const sessionId = await adopt(tab);
        // Attached after the caller was told it failed: undo it, so no session nobody knows of lingers.
        if (timedOut) {
          await undo(sessionId);
          throw new DeadlineError(
            'tabs.attach',
            timeoutMs,
            `: tab ${tabId} was attached too late and detached again`,
          );
        }
        this.sessions.set(tabId, sessionId);
        return sessionId;
      })();
      pending = withDeadline(work, timeoutMs, () => {
        timedOut = true;
        return new DeadlineError('tabs.attach', timeoutMs, `: tab ${tabId} could not be attached in time`);
      }).finally(() => this.attaching.delete(tabId));
      this.attaching.set(tabId, pending);
    }
    try {
      return await pending;
    } catch (error) {
      // An attach that made no session leaves a tab nobody owned as it found it.
      if (claim === 'claimed' && !this.sessions.has(tabId)) this.owners.forget(tabId);
      throw error;
    }
  }

  /** The session on a tab ended (session.close, the idle janitor, the tab closed). */
  detached(tabId: string, sessionId: string): void {
    if (this.sessions.get(tabId) === sessionId) this.sessions.delete(tabId);
  }

  /** Disconnects from the Chrome; never closes it or its tabs. */
  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser ?? (await this.connecting?.catch(() => undefined));
    this.browser = undefined;
    await browser?.close();
  }

  private async connect(): Promise<Browser> {
    const { cdpUrl, connectTimeoutMs } = this.options;
    if (cdpUrl === undefined) {
      throw new CdpUnavailableError(
        undefined,
        'tabs.* need CDP_URL: start Chrome with --remote-debugging-port=9223 and set CDP_URL=http://127.0.0.1:9223.',
      );
    }
    if (this.closed) throw new CdpUnavailableError(cdpUrl, 'The service is shutting down.');
    if (this.browser?.isConnected()) return this.browser;
    this.connecting ??= (async () => {
      try {
        const browser = await chromium.connectOverCDP(cdpUrl, { timeout: connectTimeoutMs });
        browser.on('disconnected', () => {
          if (this.browser !== browser) return;
          this.browser = undefined;
          // The tabs' owners stay: the same tabs keep their target ids over the next connection.
          this.sessions.clear();
          this.options.logger.warn({ cdpUrl }, 'CDP browser disconnected; the next tabs.* call reconnects');
        });
        this.browser = browser;
        this.options.logger.info({ cdpUrl, version: browser.version() }, 'connected to the CDP browser');
        return browser;
      } catch (error) {
        throw new CdpUnavailableError(
          cdpUrl,
          `Cannot reach the browser at CDP_URL (${cdpUrl}) within ${connectTimeoutMs} ms: ${firstLine(error)}. Is Chrome running with --remote-debugging-port?`,
        );
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  /** Runs CDP commands on a browser-level session under the command deadline. */
  private async command<T>(what: string, work: (cdp: CDPSession) => Promise<T>): Promise<T> {
    const browser = await this.connect();
    const timeoutMs = this.options.commandTimeoutMs;
    const run = async () => {
      const cdp = await browser.newBrowserCDPSession();
      try {
        return await work(cdp);
      } finally {
        await cdp
          .detach()
          .catch((error: unknown) => this.options.logger.debug({ err: error }, 'CDP detach failed'));
      }
    };
    try {
      return await withDeadline(
        run(),
        timeoutMs,
        () => new DeadlineError(what, timeoutMs, ': the CDP browser did not answer; the connection is reset'),
      );
    } catch (error) {
      if (error instanceof DeadlineError) {
        // A connection that stops answering is dropped, so the next call starts on a fresh one.
        if (this.browser === browser) this.browser = undefined;
        void browser.close().catch(() => undefined);
      }
      throw error;
    }
  }

  /** Refuses a tab the browser does not list, and in the same words one that is another caller's. */
  private async requireTab(tabId: string, caller: SessionCaller): Promise<void> {
    const tabs = await this.list(caller);
    if (!tabs.some((t) => t.tabId === tabId)) throw new TabNotFoundError(tabId);
  }

  /** The target id of a Playwright page (Playwright does not expose it), asked once per page. */
  private async targetIdOf(context: BrowserContext, page: Page): Promise<string | undefined> {
    const known = this.targetIds.get(page);
    if (known !== undefined) return known;
    const cdp = await context.newCDPSession(page);
    try {
      const { targetInfo } = await cdp.send('Target.getTargetInfo');
      this.targetIds.set(page, targetInfo.targetId);
      return targetInfo.targetId;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  private async page(tabId: string, what: string, caller: SessionCaller): Promise<TabPage> {
    await this.requireTab(tabId, caller);
    const browser = await this.connect();
    const deadline = Date.now() + TAB_WAIT.appearMs;
    for (;;) {
      for (const context of browser.contexts()) {
        for (const page of context.pages()) {
          // A page closing while asked is not the tab we want: skip it.
          const id = await this.targetIdOf(context, page).catch(() => undefined);
          if (id === tabId) return { tabId, context, page };
        }
      }
      if (Date.now() >= deadline) {
        throw new DeadlineError(
          what,
          TAB_WAIT.appearMs,
          `: tab ${tabId} is listed by the browser but its page did not become reachable`,
        );
      }
      await sleep(TAB_WAIT.pollMs);
    }
  }
}
