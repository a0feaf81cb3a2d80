// The floor: Playwright in-process, one launched browser, no HTTP and no JSON-RPC.
import { performance } from 'node:perf_hooks';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { chromiumRoots, cmdline, killTreeNow, readProc, type ProcInfo } from '../lib/proc.js';
import { ACTION_SELECTORS, DRAG, KEY, MOUSE_POINT, TYPE_TEXT, selectValue } from '../lib/acting.js';
import { withTimeout } from '../lib/stats.js';
import type { ActionKind, BenchSession, BenchSystem, FillStep, Target, TextRead } from './types.js';

/** The service's default viewport, so screenshots are the same size on every system. */
export const VIEWPORT = { width: 1280, height: 800 };

const innerText = (el: Element): string =>
  el instanceof HTMLElement ? el.innerText : (el.textContent ?? '');

/** Playwright's networkidle rule: no request in flight for this long. */
export const PLAYWRIGHT_IDLE_MS = 500;

/**
 * Playwright's networkidle rule (500 ms with no request in flight), computed from page events, with a
 * request counted done at its response headers. Playwright's own networkidle counts a request done
 * only at `requestfinished`, which Chromium 156 never sends for a no-store response whose body the
 * page never reads (/projects's /api/fail): there it never fires at all (the run checks this and
 * records it). This is what it would take without that hang; counting at the response makes it, if
 * anything, a little faster than Playwright's.
 */
class QuietTracker {
  private readonly inflight = new Set<Request>();
  private lastChange = performance.now();
  private readonly listeners = new Set<() => void>();

  constructor(page: Page) {
    const add = (r: Request): void => {
      this.inflight.add(r);
      this.changed();
    };
    const done = (r: Request): void => {
      if (this.inflight.delete(r)) this.changed();
    };
    page.on('request', add);
    page.on('response', (res) => done(res.request()));
    page.on('requestfinished', done);
    page.on('requestfailed', done);
  }

  private changed(): void {
    this.lastChange = performance.now();
    for (const l of this.listeners) l();
  }

  waitForIdle(quietMs: number, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        clearTimeout(limit);
        this.listeners.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = (): void => {
        clearTimeout(timer);
        if (this.inflight.size > 0) return;
        const wait = Math.max(0, quietMs - (performance.now() - this.lastChange));
        timer = setTimeout(() => finish(), wait);
      };
      const limit = setTimeout(
        () => finish(new Error(`no ${quietMs} ms of network quiet within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.listeners.add(check);
      check();
    });
  }
}

class FloorSession implements BenchSession {
  private readonly quiet: QuietTracker;

  constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
    private readonly timeoutMs: number,
  ) {
    this.quiet = new QuietTracker(page);
  }

  async goto(url: string, waitUntil: 'load' | 'networkidle'): Promise<void> {
    await this.page.goto(url, { waitUntil: 'load', timeout: this.timeoutMs });
    if (waitUntil === 'networkidle') await this.quiet.waitForIdle(PLAYWRIGHT_IDLE_MS, this.timeoutMs);
  }

  async gotoAndWaitForText(url: string, text: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'load', timeout: this.timeoutMs });
    await this.page.getByText(text).first().waitFor({ timeout: this.timeoutMs });
  }

  async readText(selector: string, probe?: string): Promise<TextRead> {
    const text = await this.page.locator(selector).first().innerText({ timeout: this.timeoutMs });
    return read(text, probe);
  }

  async readPage(probe?: string): Promise<TextRead> {
    const text = await this.page.locator('body').evaluate(innerText, undefined, { timeout: this.timeoutMs });
    return read(text, probe);
  }

  async snapshot(probe?: string): Promise<TextRead> {
    return read(await this.page.ariaSnapshot({ mode: 'ai', timeout: this.timeoutMs }), probe);
  }

  async actionable(probe?: string): Promise<TextRead> {
    // Playwright has no interactive-only view: an agent on the floor reads the whole snapshot.
    return this.snapshot(probe);
  }

  async prepare(_target: Target): Promise<void> {
    // Selectors need no preparation.
  }

  async click(target: Target): Promise<void> {
    await this.page.locator(target.selector).click({ timeout: this.timeoutMs });
  }

  async fill(target: Target, value: string): Promise<void> {
    await this.page.locator(target.selector).fill(value, { timeout: this.timeoutMs });
  }

  /** The bare Playwright call of each action: no settle, no report. */
  async act(kind: ActionKind, i: number): Promise<void> {
    const timeout = this.timeoutMs;
    const at = (selector: string) => this.page.locator(selector);
    switch (kind) {
      case 'hover':
        return at(ACTION_SELECTORS.hover).hover({ timeout });
      case 'dblclick':
        return at(ACTION_SELECTORS.dblclick).dblclick({ timeout });
      case 'check':
        return at(ACTION_SELECTORS.check).check({ timeout });
      case 'select':
        await at(ACTION_SELECTORS.select).selectOption([{ value: selectValue(i) }], { timeout });
        return;
      case 'type':
        return at(ACTION_SELECTORS.type).pressSequentially(TYPE_TEXT, { delay: 0, timeout });
      case 'focus':
        return at(ACTION_SELECTORS.focus).focus({ timeout });
      case 'keyboard':
        return this.page.keyboard.press(KEY);
      case 'mouse':
        return this.page.mouse.click(MOUSE_POINT.x, MOUSE_POINT.y);
      case 'scroll':
        return at(ACTION_SELECTORS.scroll).scrollIntoViewIfNeeded({ timeout });
      case 'drag':
        return at(DRAG.source).dragTo(at(DRAG.target), { steps: DRAG.steps, timeout });
    }
  }

  async fillsThenClick(fills: readonly FillStep[], click: string): Promise<void> {
    for (const { selector, value } of fills)
      await this.page.locator(selector).fill(value, { timeout: this.timeoutMs });
    await this.page.locator(click).click({ timeout: this.timeoutMs });
  }

  async screenshot(): Promise<number> {
    const png = await this.page.screenshot({ type: 'png', timeout: this.timeoutMs });
    return png.length;
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

function read(text: string, probe: string | undefined): TextRead {
  return {
    textChars: text.length,
    responseChars: text.length,
    contains: probe === undefined || text.includes(probe),
  };
}

export class FloorSystem implements BenchSystem {
  readonly name = 'floor';
  /** page.act has no in-process equivalent: the floor's six calls are the act.calls row. */
  readonly unsupported = new Set<string>(['act.batch']);
  private browser: Browser | undefined;
  private roots: ProcInfo[] = [];

  constructor(
    private readonly executablePath: string,
    private readonly args: string[],
    private readonly timeoutMs: number,
  ) {}

  async start(): Promise<void> {
    const before = new Set(chromiumRoots(process.pid, true).map((p) => p.pid));
    this.browser = await chromium.launch({
      executablePath: this.executablePath,
      headless: true,
      args: this.args,
      timeout: 60_000,
      // The benchmark handles SIGINT/SIGTERM itself and stops every system in order.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.roots = chromiumRoots(process.pid, true).filter((p) => !before.has(p.pid));
    if (this.roots.length === 0) throw new Error('floor: could not find the launched Chromium process');
  }

  version(): string {
    return this.browser?.version() ?? 'unknown';
  }

  async createSession(): Promise<FloorSession> {
    if (!this.browser) throw new Error('floor not started');
    const context = await this.browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    return new FloorSession(context, page, this.timeoutMs);
  }

  /** Playwright's own `waitUntil: 'networkidle'` on `url`, bounded: did it fire, and when. */
  async nativeNetworkidle(
    url: string,
    timeoutMs: number,
  ): Promise<{ fired: boolean; ms: number; error?: string }> {
    const session = await this.createSession();
    const t0 = performance.now();
    try {
      await session.page.goto(url, { waitUntil: 'networkidle', timeout: timeoutMs });
      return { fired: true, ms: performance.now() - t0 };
    } catch (error) {
      return { fired: false, ms: performance.now() - t0, error: String(error).split('\n')[0] ?? '' };
    } finally {
      await session.close();
    }
  }

  browserRoots(): number[] {
    return this.roots.map((p) => p.pid);
  }

  browserCommand(): string[] {
    const root = this.roots[0];
    return root ? cmdline(root.pid) : [];
  }

  async stop(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    if (browser) {
      await withTimeout(browser.close(), 15_000, 'floor browser.close').catch((error: unknown) => {
        process.stderr.write(`floor: browser.close failed (${String(error)}); killing it\n`);
      });
    }
    this.killNow();
  }

  killNow(): void {
    for (const root of this.roots) if (readProc(root.pid)?.startTime === root.startTime) killTreeNow(root);
  }
}
