// Room browser/engine/: the shared Chromium (local or remote), the warm context pool and what every context is made with; imports no other room.
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { refusedBeforeRun } from '../../errors/serviceError.js';
import type { Logger } from '../../observability/logger.js';
import { BrowserUnavailableError } from './browserErrors.js';
import { IGNORED_DEFAULT_ARGS } from './browserResolve.js';
import type { BrowserSourceEvents } from './browserSource.js';

/** Relaunch back-off after the browser dies: quick first, capped so a broken install does not spin. */
const RELAUNCH_DELAYS_MS = [0, 500, 1000, 2000, 5000];

export interface BrowserHostOptions {
  executablePath: string;
  headless: boolean;
  args: string[];
  /** The egress proxy every request of the browser goes through (the allow-list). */
  proxyServer: string | undefined;
  launchTimeoutMs: number;
  logger: Logger;
}

export type BrowserHostEvents = BrowserSourceEvents;

/**
 * Owns the one shared Chromium: launches it at start-up, watches `disconnected`, relaunches it when
 * it dies. `lost` tells the session registry that every context it held is gone.
 */
export class BrowserHost extends EventEmitter<BrowserHostEvents> {
  private current: Browser | undefined;
  private closing = false;
  private relaunching: Promise<void> | undefined;
  private traces: string | undefined;

  constructor(private readonly options: BrowserHostOptions) {
    super();
  }

  get ready(): boolean {
    return this.current !== undefined && this.current.isConnected() && this.relaunching === undefined;
  }

  get headless(): boolean {
    return this.options.headless;
  }

  /**
   * Where Playwright writes while a context traces (its tracesDir: each trace's event and network
   * files, and the resources every trace of the browser shares by content hash). The service's own
   * directory rather than Playwright's artifacts directory, so a trace's files can be deleted by name
   * when it stops (browser/artifacts/traceStore.ts); removed with the browser.
   */
  get tracesDir(): string {
    if (this.traces === undefined) throw new BrowserUnavailableError();
    return this.traces;
  }

  async start(): Promise<void> {
    this.traces = await mkdtemp(join(tmpdir(), 'pw-rpc-traces-'));
    try {
      this.current = await this.launch();
    } catch (error) {
      await rm(this.traces, { recursive: true, force: true });
      throw error;
    }
  }

  private async launch(): Promise<Browser> {
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      headless: this.options.headless,
      args: this.options.args,
      ignoreDefaultArgs: [...IGNORED_DEFAULT_ARGS],
      // Chromium's sandbox stays on unless running as root, where it cannot start (launchArgs adds --no-sandbox).
      chromiumSandbox: !this.options.args.includes('--no-sandbox'),
      timeout: this.options.launchTimeoutMs,
      tracesDir: this.traces,
      proxy: this.options.proxyServer === undefined ? undefined : { server: this.options.proxyServer },
      // The service handles SIGTERM itself and closes the browser in order.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    browser.on('disconnected', () => this.onDisconnected(browser));
    this.options.logger.info({ version: browser.version() }, 'browser launched');
    return browser;
  }

  private onDisconnected(browser: Browser): void {
    if (this.closing || browser !== this.current) return;
    this.options.logger.error('browser disconnected; relaunching');
    this.current = undefined;
    this.emit('lost');
    this.relaunching = this.relaunch().finally(() => {
      this.relaunching = undefined;
    });
  }

  private async relaunch(): Promise<void> {
    for (let attempt = 0; !this.closing; attempt++) {
      const delay = RELAUNCH_DELAYS_MS[Math.min(attempt, RELAUNCH_DELAYS_MS.length - 1)] ?? 0;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      try {
        const browser = await this.launch();
        if (this.closing) {
          await browser.close();
          return;
        }
        this.current = browser;
        this.emit('relaunched');
        return;
      } catch (error) {
        this.options.logger.error({ err: error, attempt }, 'browser relaunch failed');
      }
    }
  }

  async newContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const browser = this.current;
    if (browser === undefined || !browser.isConnected())
      throw refusedBeforeRun(new BrowserUnavailableError());
    return browser.newContext(options);
  }

  async close(): Promise<void> {
    this.closing = true;
    const browser = this.current;
    this.current = undefined;
    if (browser) await browser.close();
    if (this.traces !== undefined) await rm(this.traces, { recursive: true, force: true });
  }
}
