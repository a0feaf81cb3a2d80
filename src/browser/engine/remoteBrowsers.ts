import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import type { Logger } from '../../observability/logger.js';

/**
 * Reconnect back-off after a browser server went away (or could not be reached at start-up): quick
 * first, then every RECONNECT_DELAYS_MS's last entry for as long as the service runs.
 */
export const RECONNECT_DELAYS_MS: readonly number[] = [500, 1000, 2000, 5000, 10_000];

/** One entry of BROWSER_ENDPOINTS: where the browser server listens and how many contexts it may hold. */
export interface EndpointSpec {
  /** The ws:// endpoint without its #cap fragment (it may carry a secret wsPath: never logged whole). */
  url: string;
  capacity: number;
}

/** A ws:// URL for the log: scheme, host and port; the wsPath may be the server's only secret. */
/**
 * An error about an endpoint as a log line may show it: its message with the endpoint's path (the
 * server's secret, which Playwright's call log repeats) replaced, and no stack or call log object.
 */
export function endpointError(error: unknown, url: string): { message: string } {
  const message = error instanceof Error ? error.message : String(error);
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    // An unparsable endpoint was refused by the configuration; nothing of it is in the message.
  }
  return { message: path.length > 1 ? message.replaceAll(path, '/…') : message };
}

export function endpointLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unparsable endpoint)';
  }
}

/**
 * One browser server of BROWSER_ENDPOINTS: connected with chromium.connect, watched for
 * `disconnected`, reconnected with back-off while the service runs. `onLost` tells the tier that
 * the contexts made on the browser are gone; `onBack` that it can take contexts again.
 */
export class RemoteEndpoint {
  private browser: Browser | undefined;
  private retry: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private failures = 0;
  /** Contexts being made on it right now (counted against its capacity until they exist). */
  opening = 0;

  constructor(
    readonly spec: EndpointSpec,
    private readonly connect: { timeoutMs: number; headers: Record<string, string> },
    private readonly logger: Logger,
    private readonly onLost: (browser: Browser) => void,
    private readonly onBack: () => void,
    /** A context the service let go of (closing, or abandoned): it no longer counts against the cap. */
    private readonly released: (context: BrowserContext) => boolean = () => false,
  ) {}

  get label(): string {
    return endpointLabel(this.spec.url);
  }

  /** The connected browser, when it is. */
  get current(): Browser | undefined {
    return this.browser?.isConnected() === true ? this.browser : undefined;
  }

  /** Contexts on it (sessions and pooled ones, this service's only, none let go of) plus those being made. */
  get load(): number {
    const held = (this.current?.contexts() ?? []).filter((c) => !this.released(c));
    return held.length + this.opening;
  }

  /** The first connection: resolves either way; a failure starts the back-off. */
  start(): Promise<void> {
    return this.attempt();
  }

  private attempt(): Promise<void> {
    this.connecting ??= this.connectOnce().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connectOnce(): Promise<void> {
    let browser: Browser;
    try {
      browser = await chromium.connect(this.spec.url, {
        timeout: this.connect.timeoutMs,
        headers: this.connect.headers,
      });
    } catch (error) {
      this.logger.warn(
        { endpoint: this.label, attempt: this.failures, err: endpointError(error, this.spec.url) },
        'browser server unreachable; retrying',
      );
      this.schedule();
      return;
    }
    if (this.closed) {
      await browser.close();
      return;
    }
    const wasDown = this.failures > 0;
    this.failures = 0;
    this.browser = browser;
    browser.on('disconnected', () => this.onDisconnected(browser));
    this.logger.info({ endpoint: this.label, version: browser.version() }, 'browser server connected');
    if (wasDown) this.onBack();
  }

  private onDisconnected(browser: Browser): void {
    if (this.browser !== browser) return;
    this.browser = undefined;
    if (this.closed) return;
    this.logger.error({ endpoint: this.label }, 'browser server went away; its sessions are lost');
    this.onLost(browser);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.retry !== undefined) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.failures, RECONNECT_DELAYS_MS.length - 1)] ?? 0;
    this.failures++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.attempt();
    }, delay);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.connecting;
    const browser = this.browser;
    this.browser = undefined;
    // Closing a connected browser closes this client's contexts on the server and disconnects.
    if (browser !== undefined) await browser.close();
  }
}
