import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import type { Logger } from '../observability/logger.js';
import type { BrowserHost } from './browserHost.js';
import { withDeadline } from '../errors/deadline.js';
import { SessionLimitError, SessionNotFoundError, type MissingReason } from './browserErrors.js';
import {
  ContextPool,
  OPEN_CONTEXT_TIMEOUT_MS,
  closeQuietly,
  openContext,
  type ContextOverrides,
  type OpenedContext,
} from './contextPool.js';
import { Session, type SessionOptions } from './session.js';
import type { UrlPolicy } from './urlPolicy.js';

/** How many ids of ended sessions are remembered, so SESSION_NOT_FOUND can say why. */
const ENDED_MEMORY = 10_000;

export interface SessionRegistryOptions {
  maxSessions: number;
  ttlMs: number;
  janitorIntervalMs: number;
  closeTimeoutMs: number;
  /** Ready contexts kept for session.create (POOL_SIZE); 0 turns the pool off. */
  poolSize: number;
  /** The pool refills only after no call has run for this long (POOL_REFILL_IDLE_MS). */
  poolRefillIdleMs: number;
  session: SessionOptions;
}

export interface SessionHooks {
  created?: () => void;
  expired?: () => void;
  countChanged?: (active: number) => void;
}

export type NewSessionOptions = ContextOverrides;

/**
 * Every live session: creation under MAX_SESSIONS (slots are reserved before the slow context
 * creation, so a race of parallel creates cannot exceed it), lookup, the idle janitor, and the
 * loss of every session when the browser dies.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly ended = new Map<string, MissingReason>();
  private reserved = 0;
  /** When a session was last created or closed: part of what idleFor() measures. */
  private lastChangeAt = 0;
  private janitor: NodeJS.Timeout | undefined;
  private readonly pool: ContextPool;

  constructor(
    private readonly host: BrowserHost,
    private readonly policy: UrlPolicy,
    private readonly options: SessionRegistryOptions,
    private readonly logger: Logger,
    private readonly hooks: SessionHooks = {},
  ) {
    host.on('lost', () => this.onBrowserLost());
    this.pool = new ContextPool(
      host,
      options.poolSize,
      () => this.options.maxSessions - this.sessions.size - this.reserved - this.pool.held,
      () => this.idleFor() >= this.options.poolRefillIdleMs,
      logger,
    );
    this.pool.fill();
  }

  async create(options: NewSessionOptions): Promise<Session> {
    if (this.sessions.size + this.reserved >= this.options.maxSessions) {
      throw new SessionLimitError(this.options.maxSessions, this.nextExpiryMs());
    }
    this.reserved++;
    try {
      const { context, page } = await this.openFor(options);
      return this.register((id) => new Session(id, context, page, this.policy, this.options.session));
    } finally {
      this.reserved--;
    }
  }

  /**
   * A pooled context when the options are the defaults (a viewport is applied to the page), else a
   * new one, after releasing a pooled context when the pool holds the last free slot.
   */
  private async openFor(options: NewSessionOptions): Promise<OpenedContext> {
    if (options.userAgent === undefined && options.storageState === undefined) {
      const pooled = this.pool.take();
      if (pooled !== undefined) {
        if (options.viewport === undefined || options.viewport === null) return pooled;
        try {
          await withDeadline(
            pooled.page.setViewportSize(options.viewport),
            OPEN_CONTEXT_TIMEOUT_MS,
            () => new Error('setting the viewport timed out'),
          );
          return pooled;
        } catch (error) {
          await closeQuietly(pooled, this.logger);
          throw error;
        }
      }
    }
    // This create holds one reserved slot; pooled contexts must leave room for it.
    if (this.sessions.size + this.reserved + this.pool.held > this.options.maxSessions)
      await this.pool.release();
    return openContext(this.host, options);
  }

  /**
   * Registers a page the service does not own (a tab of the CDP_URL browser, tabs.attach) as a
   * session under MAX_SESSIONS. Closing it calls `release` and leaves the tab open; the tab closing
   * ends the session.
   */
  adopt(context: BrowserContext, page: Page, release: () => Promise<void>): Session {
    if (this.sessions.size + this.reserved >= this.options.maxSessions) {
      throw new SessionLimitError(this.options.maxSessions, this.nextExpiryMs());
    }
    const session = this.register(
      (id) => new Session(id, context, page, this.policy, this.options.session, release),
    );
    page.once('close', () => void this.close(session.id));
    return session;
  }

  /** Gives a new session its unguessable id and makes it live. */
  private register(make: (id: string) => Session): Session {
    const session = make(`s_${randomUUID()}`);
    this.sessions.set(session.id, session);
    this.hooks.created?.();
    this.lastChangeAt = Date.now();
    this.hooks.countChanged?.(this.sessions.size);
    return session;
  }

  /** Milliseconds since any session call or create last ran; 0 while one is running. */
  private idleFor(now = Date.now()): number {
    if (this.reserved > 0) return 0;
    let last = this.lastChangeAt;
    for (const s of this.sessions.values()) {
      if (s.busy) return 0;
      last = Math.max(last, s.lastUsedAt);
    }
    return now - last;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The live session with that id, or a SessionNotFoundError that says why there is none. */
  resolve(id: string): Session {
    const session = this.sessions.get(id);
    if (session !== undefined) return session;
    const reason = this.ended.get(id) ?? 'unknown';
    throw new SessionNotFoundError(
      id,
      reason,
      reason === 'expired' ? ` for ${Math.round(this.options.ttlMs / 1000)} s (SESSION_TTL_MS)` : '',
    );
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** Closes a session; bounded in time even when its page is frozen. False when it was not open. */
  async close(id: string, reason: MissingReason = 'closed'): Promise<boolean> {
    const session = this.sessions.get(id);
    if (session === undefined) return false;
    this.forget(id, reason);
    session.ended = reason;
    try {
      await withDeadline(
        session.release === undefined ? session.context.close() : session.detach(),
        this.options.closeTimeoutMs,
        () => new Error('context close timed out'),
      );
    } catch (error) {
      this.logger.warn(
        { sessionId: id, err: error },
        'session close did not finish in time; its context is abandoned',
      );
    }
    return true;
  }

  private forget(id: string, reason: MissingReason): void {
    this.sessions.delete(id);
    this.ended.set(id, reason);
    if (this.ended.size > ENDED_MEMORY) {
      const oldest = this.ended.keys().next();
      if (!oldest.done) this.ended.delete(oldest.value);
    }
    this.lastChangeAt = Date.now();
    this.hooks.countChanged?.(this.sessions.size);
    this.pool.fill();
  }

  startJanitor(): void {
    this.janitor ??= setInterval(() => void this.sweep(), this.options.janitorIntervalMs);
    this.janitor.unref();
  }

  stopJanitor(): void {
    if (this.janitor) clearInterval(this.janitor);
    this.janitor = undefined;
  }

  /** Closes sessions idle past the TTL; a session in the middle of a call is never cut short. */
  async sweep(now = Date.now()): Promise<number> {
    const idle = this.list().filter((s) => !s.busy && now - s.lastUsedAt > this.options.ttlMs);
    await Promise.all(
      idle.map(async (s) => {
        this.logger.info({ sessionId: s.id, idleMs: now - s.lastUsedAt }, 'session expired');
        this.hooks.expired?.();
        await this.close(s.id, 'expired');
      }),
    );
    return idle.length;
  }

  private nextExpiryMs(): number {
    const now = Date.now();
    let soonest = this.options.ttlMs;
    for (const s of this.sessions.values())
      soonest = Math.min(soonest, Math.max(0, s.lastUsedAt + this.options.ttlMs - now));
    return soonest + this.options.janitorIntervalMs;
  }

  private onBrowserLost(): void {
    for (const session of this.list()) {
      // An adopted tab lives in the CDP_URL browser, not in the one that was lost.
      if (session.release !== undefined) continue;
      session.ended = 'browser-restarted';
      this.forget(session.id, 'browser-restarted');
    }
  }

  async closeAll(): Promise<void> {
    this.stopJanitor();
    await this.pool.close();
    await Promise.all(this.list().map((s) => this.close(s.id)));
  }
}
