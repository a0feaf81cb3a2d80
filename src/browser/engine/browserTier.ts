import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { refusedBeforeRun, ServiceError } from '../../errors/serviceError.js';
import type { Logger } from '../../observability/logger.js';
import { BrowserServerLostError, BrowserUnavailableError } from './browserErrors.js';
import type { BrowserSource, BrowserSourceEvents } from './browserSource.js';
import { CLOSED } from '../../errors/mapError.js';
import { DeadlineError, withDeadline } from '../../errors/deadline.js';
import { OPEN_CONTEXT_TIMEOUT_MS } from './contextPool.js';
import type { ProxyCredentials, ProxyLogin } from './proxyCredentials.js';
import { RemoteEndpoint, endpointError, type EndpointSpec } from './remoteBrowsers.js';

/**
 * A call on a remote context failed as if its target closed: how long to wait for the browser
 * server's connection to drop before answering it as a page that closed or crashed. A server whose
 * Chromium died tells its clients so (the call's error) a moment before its socket closes.
 */
export const SERVER_LOSS_GRACE_MS = 3000;

/** How soon a caller refused for want of a browser server should try again. */
export const TIER_RETRY_AFTER_MS = 1000;

export interface BrowserTierOptions {
  endpoints: readonly EndpointSpec[];
  /** The egress proxy's URL as the browser servers reach it (EGRESS_PROXY_ADVERTISED_HOST). */
  proxyServer: string;
  /** The proxy's per-context logins: each context gets one, revoked when it closes. */
  credentials: ProxyCredentials;
  /** Bound on each connection attempt (BROWSER_LAUNCH_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /**
   * Launch options a `playwright run-server` endpoint launches its browser with (the service's
   * flags, WebRTC policy included); a launchServer endpoint (scripts/browserServer.ts) ignores them.
   */
  launchArgs: string[];
  logger: Logger;
  /** Bound on the server making one context; OPEN_CONTEXT_TIMEOUT_MS unless a test sets less. */
  openTimeoutMs?: number;
}

/** The endpoint a new context goes to: the least loaded against its capacity, among the connected. */
export function pickEndpoint<T extends { load: number; spec: EndpointSpec; connected: boolean }>(
  endpoints: readonly T[],
): T | undefined {
  let best: T | undefined;
  for (const e of endpoints) {
    if (!e.connected || e.load >= e.spec.capacity) continue;
    if (best === undefined || e.load / e.spec.capacity < best.load / best.spec.capacity) best = e;
  }
  return best;
}

/**
 * The browser tier of BROWSER_ENDPOINTS: Playwright browser servers instead of the local Chromium.
 * Each new context goes to the least loaded connected server, always with the egress proxy as its
 * per-context proxy and a login of its own (a context is never made without it). A server that
 * goes away takes only its own contexts (`browserLost`); it is reconnected with back-off.
 */
export class BrowserTier extends EventEmitter<BrowserSourceEvents> {
  private readonly endpoints: RemoteEndpoint[];
  private traces: string | undefined;
  /** Each open context's proxy login, so the session id can label it and its end can revoke it. */
  private readonly logins = new WeakMap<BrowserContext, ProxyLogin>();
  /** Contexts the service let go of whose close the server has not confirmed: no longer counted. */
  private readonly released = new WeakSet<BrowserContext>();

  constructor(private readonly options: BrowserTierOptions) {
    super();
    if (options.endpoints.length === 0) throw new Error('BrowserTier needs at least one endpoint');
    const headers = {
      'x-playwright-launch-options': JSON.stringify({ headless: true, args: options.launchArgs }),
    };
    this.endpoints = options.endpoints.map(
      (spec) =>
        new RemoteEndpoint(
          spec,
          { timeoutMs: options.connectTimeoutMs, headers },
          options.logger,
          (browser) => this.emit('browserLost', browser),
          () => this.emit('relaunched'),
          (context) => this.released.has(context),
        ),
    );
  }

  /** The egress proxy's URL as the browser servers are told it. */
  get proxyServer(): string {
    return this.options.proxyServer;
  }

  /** At least one browser server is connected. */
  get ready(): boolean {
    return this.endpoints.some((e) => e.current !== undefined);
  }

  /** The launcher (scripts/browserServer.ts) starts headless browsers; run-server is asked for one. */
  get headless(): boolean {
    return true;
  }

  get tracesDir(): string {
    if (this.traces === undefined) throw new BrowserUnavailableError();
    return this.traces;
  }

  /** Each endpoint as /readyz or a log would say it: label, connected, load, capacity. */
  describe(): { endpoint: string; connected: boolean; load: number; capacity: number }[] {
    return this.endpoints.map((e) => ({
      endpoint: e.label,
      connected: e.current !== undefined,
      load: e.load,
      capacity: e.spec.capacity,
    }));
  }

  /**
   * A context became a session's (`label`: its id): the proxy's log names the context's requests by
   * it, and the log says which browser server holds the session (host and port only, as every
   * endpoint log line), so an operator can tell whose sessions a lost server took.
   */
  labelContext(context: BrowserContext, label: string): void {
    const login = this.logins.get(context);
    if (login !== undefined) this.options.credentials.relabel(login.username, label);
    const endpoint = this.endpointOf(context.browser());
    if (endpoint !== undefined)
      this.options.logger.info({ sessionId: label, endpoint }, 'session placed on a browser server');
  }

  /** The proxy login a context was given while it holds one (tests check its revocation; never logged). */
  loginOf(context: BrowserContext): ProxyLogin | undefined {
    return this.logins.get(context);
  }

  /**
   * Lets go of a context before closing it: its login is revoked and its endpoint stops counting it
   * now, so a close that fails or never ends (a hung server; the registry then abandons it) leaves
   * neither a live way through the proxy nor a slot of the endpoint's #cap behind.
   */
  async closeContext(context: BrowserContext): Promise<void> {
    const login = this.logins.get(context);
    if (login !== undefined) this.options.credentials.revoke(login.username);
    this.logins.delete(context);
    this.released.add(context);
    await context.close();
  }

  /** The browser server a context lives on, by its label (for logs and tests). */
  endpointOf(browser: Browser | null): string | undefined {
    return this.endpoints.find((e) => browser !== null && e.current === browser)?.label;
  }

  /** Connects to every endpoint; an unreachable one is retried in the background, not fatal. */
  async start(): Promise<void> {
    this.traces = await mkdtemp(join(tmpdir(), 'pw-rpc-traces-'));
    await Promise.all(this.endpoints.map((e) => e.start()));
    if (!this.ready)
      this.options.logger.error('no browser server of BROWSER_ENDPOINTS is reachable yet; /readyz says 503');
  }

  async newContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const chosen = pickEndpoint(
      this.endpoints.map((e) => ({
        endpoint: e,
        load: e.load,
        spec: e.spec,
        connected: e.current !== undefined,
      })),
    );
    if (chosen === undefined) throw refusedBeforeRun(this.refusal());
    const endpoint = chosen.endpoint;
    const browser = endpoint.current;
    if (browser === undefined) throw refusedBeforeRun(this.refusal());
    const login = this.options.credentials.issue('context');
    const withProxy = assertProxied(
      { ...options, proxy: { server: this.options.proxyServer, ...login } },
      this.options.proxyServer,
    );
    endpoint.opening++;
    const making = browser.newContext(withProxy);
    try {
      const context = await withDeadline(
        making,
        this.options.openTimeoutMs ?? OPEN_CONTEXT_TIMEOUT_MS,
        () => {
          // A hung server must not hold the endpoint's count and the login forever: both are let go
          // now, and a context that still arrives is closed (its failure is nobody's news by then).
          making.then((late) => this.closeContext(late)).catch(() => undefined);
          return new DeadlineError(
            'creating a context on a browser server',
            this.options.openTimeoutMs ?? OPEN_CONTEXT_TIMEOUT_MS,
            ': the server may be overloaded or hung',
          );
        },
      );
      context.once('close', () => this.options.credentials.revoke(login.username));
      this.logins.set(context, login);
      return context;
    } catch (error) {
      this.options.credentials.revoke(login.username);
      throw error;
    } finally {
      endpoint.opening--;
    }
  }

  async awaitLoss(browser: Browser, graceMs: number): Promise<boolean> {
    if (!browser.isConnected()) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        browser.off('disconnected', gone);
        resolve(false);
      }, graceMs);
      const gone = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      browser.once('disconnected', gone);
    });
  }

  private refusal(): ServiceError {
    if (!this.ready) {
      return new ServiceError(
        'RESOURCE_UNAVAILABLE',
        'No browser server of BROWSER_ENDPOINTS is reachable; retry in a moment.',
        { retryAfterMs: TIER_RETRY_AFTER_MS, reason: 'browser-servers-unreachable' },
      );
    }
    const capacity = this.endpoints.reduce(
      (sum, e) => sum + (e.current === undefined ? 0 : e.spec.capacity),
      0,
    );
    return new ServiceError(
      'LIMIT_REACHED',
      `Every reachable browser server holds all the contexts its capacity allows (${capacity} in all, BROWSER_ENDPOINTS #cap); close a session or retry later.`,
      { limit: 'BROWSER_ENDPOINTS', capacity, retryAfterMs: TIER_RETRY_AFTER_MS },
    );
  }

  async close(): Promise<void> {
    await Promise.all(
      this.endpoints.map((e) =>
        e
          .close()
          .catch((error: unknown) =>
            this.options.logger.warn(
              { endpoint: e.label, err: endpointError(error, e.spec.url) },
              'browser server disconnect failed',
            ),
          ),
      ),
    );
    if (this.traces !== undefined) await rm(this.traces, { recursive: true, force: true });
  }
}

/**
 * The rule of the tier: a context on a remote browser is made with the egress proxy and a login, or
 * not at all. Throws (a service bug, never a caller's) when the options say otherwise.
 */
export function assertProxied(options: BrowserContextOptions, proxyServer: string): BrowserContextOptions {
  const proxy = options.proxy;
  if (
    proxy === undefined ||
    proxy.server !== proxyServer ||
    (proxy.bypass ?? '') !== '' ||
    !proxy.username ||
    !proxy.password
  )
    throw new Error('refusing to create a remote browser context without the egress proxy and its login');
  return options;
}

/**
 * The answer of a call that failed on a context whose remote browser server went away under it:
 * RESOURCE_UNAVAILABLE saying so (the registry has forgotten the session by then, so later calls
 * answer SESSION_NOT_FOUND). Undefined for every other failure, and with the local browser.
 */
export async function serverLostError(
  source: BrowserSource,
  session: { id: string; context: BrowserContext },
  error: unknown,
): Promise<Error | undefined> {
  if (source.awaitLoss === undefined || error instanceof ServiceError || !(error instanceof Error))
    return undefined;
  if (!CLOSED.test(error.message)) return undefined;
  const browser = session.context.browser();
  if (browser === null) return undefined;
  const loss = source.awaitLoss(browser, SERVER_LOSS_GRACE_MS);
  // A round trip to the server that answers proves it alive at once (a page that closed itself
  // must not hold the session's lock for the whole grace); one that fails leaves it to the grace.
  const alive = session.context.cookies().then(
    () => true,
    () => false,
  );
  const lost = await Promise.race([loss, alive.then((ok) => (ok ? false : loss))]);
  return lost ? new BrowserServerLostError(session.id) : undefined;
}
