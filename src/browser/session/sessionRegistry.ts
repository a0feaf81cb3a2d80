// Over ~300 lines on purpose: one class owns the lifecycle of every session (create from the pool,
// adopt a tab, resolve for a caller, close, expire, lose with the browser), and each step reads the
// same maps and counters under the same invariants; its ownership rules live in sessionOwners.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Logger } from '../../observability/logger.js';
import type { BrowserSource } from '../engine/browserSource.js';
import { serverLostError } from '../engine/browserTier.js';
import { withDeadline } from '../../errors/deadline.js';
import { refusedBeforeRun } from '../../errors/serviceError.js';
import {
  SessionLimitError,
  SessionNotFoundError,
  SessionQuotaError,
  type MissingReason,
} from '../engine/browserErrors.js';
import {
  ContextPool,
  OPEN_CONTEXT_TIMEOUT_MS,
  closeContext,
  closeQuietly,
  openContext,
  type ContextLimits,
  type ContextOverrides,
  type OpenedContext,
  pooledWillDo,
} from '../engine/contextPool.js';
import {
  CALL_GAP_MS,
  PoolPolicy,
  capacityOf,
  type PoolPolicyLimits,
  type ServiceCapacity,
} from '../engine/poolPolicy.js';
import type { ReplayPictures } from '../artifacts/replayPictures.js';
import type { SessionLog } from '../events/sessionLog.js';
import { Session, type SessionOptions } from './session.js';
import { SessionOwners, reaches, type SessionCaller } from '../engine/sessionOwners.js';
import type { UrlPolicy } from '../network/urlPolicy.js';

/** How many ids of ended sessions are remembered, so SESSION_NOT_FOUND can say why. */
const ENDED_MEMORY = 10_000;

export interface SessionRegistryOptions {
  maxSessions: number;
  /** Open sessions one owner may hold (MAX_SESSIONS_PER_KEY), so one key cannot take every slot. */
  maxSessionsPerOwner: number;
  ttlMs: number;
  /** REPLAY_KEEP_MS: how long a closed session's log and pictures stay readable by its owner. */
  replayKeepMs?: number;
  janitorIntervalMs: number;
  closeTimeoutMs: number;
  /** The warm pool's limits (POOL_SIZE, POOL_MAX_SIZE, POOL_MAX_OPENING, ...); minSize 0 turns it off. */
  pool: PoolPolicyLimits;
  /** What every context is made with (MAX_CLIPBOARD_CHARS), pooled or not. */
  context: ContextLimits;
  session: SessionOptions;
  /** What every session id starts with: `s_`, or `s_<REPLICA_ID>.` on a replica (replicas/sessionIds.ts). */
  idPrefix?: string;
}

export interface SessionHooks {
  created?: () => void;
  expired?: () => void;
  countChanged?: (active: number) => void;
  /** A create with default options asked the pool: `hit` when it got a ready context. */
  poolTaken?: (hit: boolean) => void;
}

export type NewSessionOptions = ContextOverrides;

interface EndedSession {
  reason: MissingReason;
  owner: string | undefined;
  /** Its log and replay pictures, readable by its owner until `until` (REPLAY_KEEP_MS). */
  kept?: { log: SessionLog; replay: ReplayPictures | undefined; until: number };
}

/** What a session leaves to read after it closed, and while it is open: its log and pictures. */
export interface SessionRecord {
  log: SessionLog;
  replay: ReplayPictures | undefined;
}

/** Closed sessions whose log and pictures are kept at once; past it the oldest kept go first. */
export const MAX_KEPT_SESSIONS = 20;

/** The longest a create that must open a context, or a close, waits for another key's calls to end. */
export const CREATE_YIELD_MAX_MS = 1_000;
/** How often that wait looks again. */
const CREATE_YIELD_POLL_MS = 10;
/**
 * How long the warm pool's refill waits for the first call of a session just created (a client
 * sends it right after the create's answer, a round trip later): an opening started meanwhile would
 * run under that call. A session with no call after this no longer holds the refill back.
 */
export const FIRST_CALL_GRACE_MS = 500;

/**
 * Every live session: creation under MAX_SESSIONS and the owner's share of it (slots are reserved
 * before the slow context creation, so a race of parallel creates cannot exceed either), lookup
 * scoped to the owner, the idle janitor, and the loss of every session when the browser dies.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly owners = new SessionOwners();
  private readonly ended = new Map<string, EndedSession>();
  private reserved = 0;
  /** When a session was last created or closed: part of what idleFor() measures. */
  private lastChangeAt = 0;
  private janitor: NodeJS.Timeout | undefined;
  private readonly pool: ContextPool;

  constructor(
    private readonly host: BrowserSource,
    private readonly policy: UrlPolicy,
    private readonly options: SessionRegistryOptions,
    private readonly logger: Logger,
    private readonly hooks: SessionHooks = {},
  ) {
    host.on('lost', () => this.onBrowserLost());
    host.on('browserLost', (browser) => this.onBrowserLost(browser));
    this.pool = new ContextPool(
      host,
      options.context,
      new PoolPolicy(options.pool),
      () => this.options.maxSessions - this.sessions.size - this.reserved - this.pool.held,
      () => ({
        callsRunning: this.list().filter((s) => s.busy).length,
        idleMs: this.idleFor(),
        callIdleMs: this.callIdleFor(),
      }),
      logger,
    );
    this.pool.fill();
  }

  /** A new session owned by `owner`. */
  async create(options: NewSessionOptions, owner: SessionCaller): Promise<Session> {
    this.checkRoom(owner.id);
    this.reserved++;
    this.owners.creatingChanged(owner.id, 1);
    try {
      const { context, page } = await this.openFor(options, owner.id);
      const session = this.register(
        (id) =>
          new Session(id, context, page, this.policy, {
            ...this.options.session,
            serverLost: (s, error) => serverLostError(this.host, s, error),
          }),
        owner.id,
      );
      this.host.labelContext?.(context, session.id);
      return session;
    } finally {
      this.reserved--;
      this.owners.creatingChanged(owner.id, -1);
    }
  }

  /**
   * Refuses a new session past the owner's share, first (only the owner's own sessions free it), or
   * past MAX_SESSIONS. A share of all MAX_SESSIONS (one key) is never the binding limit: such a key
   * gets MAX_SESSIONS, as before there were shares.
   */
  private checkRoom(owner: string): void {
    const share = this.options.maxSessionsPerOwner;
    if (share < this.options.maxSessions && this.owners.held(owner) >= share)
      throw refusedBeforeRun(new SessionQuotaError(share, this.nextExpiryMs(owner)));
    if (this.sessions.size + this.reserved >= this.options.maxSessions)
      throw refusedBeforeRun(new SessionLimitError(this.options.maxSessions, this.nextExpiryMs()));
  }

  /**
   * A pooled context when the options are the defaults (a viewport is applied to the page), else a
   * new one, after releasing a pooled context when the pool holds the last free slot.
   */
  private async openFor(options: NewSessionOptions, owner: string): Promise<OpenedContext> {
    if (pooledWillDo(options)) {
      const pooled = this.pool.take();
      this.hooks.poolTaken?.(pooled !== undefined);
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
          await closeQuietly(this.host, pooled, this.logger);
          throw error;
        }
      }
    }
    // This create holds one reserved slot; pooled contexts must leave room for it.
    if (this.sessions.size + this.reserved + this.pool.held > this.options.maxSessions)
      await this.pool.release();
    await this.yieldToOthers(owner);
    return openContext(this.host, this.options.context, options);
  }

  /**
   * Opening a context costs Chromium's browser process what dozens of calls cost, on the CPU every
   * session's calls share: a create that must open one waits, at most CREATE_YIELD_MAX_MS, while
   * another key's session call runs. A key creating sessions back to back then slows its own creates,
   * not the other keys' calls.
   */
  private async yieldToOthers(owner: string): Promise<void> {
    const until = Date.now() + CREATE_YIELD_MAX_MS;
    while (Date.now() < until && this.othersBusy(owner)) await sleep(CREATE_YIELD_POLL_MS);
  }

  /** Whether another key's session call runs, or ran within CALL_GAP_MS (back-to-back calls). */
  private othersBusy(owner: string, now = Date.now()): boolean {
    for (const s of this.sessions.values()) {
      if (this.owners.ownerOf(s.id) === owner) continue;
      if (s.busy || now - s.lastCallAt < CALL_GAP_MS) return true;
    }
    return false;
  }

  /**
   * Registers a page the service does not own (a tab of the CDP_URL browser, tabs.attach) as a
   * session under MAX_SESSIONS. Closing it calls `release` and leaves the tab open; the tab closing
   * ends the session.
   */
  adopt(context: BrowserContext, page: Page, release: () => Promise<void>, owner: SessionCaller): Session {
    this.checkRoom(owner.id);
    const session = this.register(
      (id) => new Session(id, context, page, this.policy, this.options.session, release),
      owner.id,
    );
    page.once('close', () => void this.close(session.id));
    return session;
  }

  /** Gives a new session its unguessable id and makes it live. */
  private register(make: (id: string) => Session, owner: string): Session {
    const session = make(`${this.options.idPrefix ?? 's_'}${randomUUID()}`);
    this.sessions.set(session.id, session);
    this.owners.add(session.id, owner);
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

  /**
   * Milliseconds since any session call last ran (creates and closes aside); 0 while one runs, and
   * while a session created less than FIRST_CALL_GRACE_MS ago has had no call yet (its first one is
   * on its way: a refill started now would run under it).
   */
  private callIdleFor(now = Date.now()): number {
    let last = 0;
    for (const s of this.sessions.values()) {
      if (s.busy) return 0;
      if (s.lastCallAt === 0 && now - s.createdAt.getTime() < FIRST_CALL_GRACE_MS) return 0;
      last = Math.max(last, s.lastCallAt);
    }
    return now - last;
  }

  /** What /readyz tells a load balancer: counts only, nothing of any tenant. */
  capacity(): ServiceCapacity {
    return capacityOf(this.options.maxSessions, this.sessions.size, this.reserved, this.pool.readyCount);
  }

  /** Any live session, whoever owns it: for the service itself, never for a caller's lookup. */
  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** The live session with that id when `caller` may reach it (its owner, or an admin). */
  lookup(id: string, caller: SessionCaller): Session | undefined {
    const owner = this.owners.ownerOf(id);
    return owner !== undefined && reaches(caller, owner) ? this.sessions.get(id) : undefined;
  }

  /**
   * The live session with that id when `caller` may reach it, or a SessionNotFoundError that says
   * why there is none. Another owner's session, live or ended, is answered exactly as an id that
   * never existed: the error tells nothing about other tenants.
   */
  resolve(id: string, caller: SessionCaller): Session {
    const session = this.lookup(id, caller);
    if (session !== undefined) return session;
    throw this.notFound(id, caller);
  }

  /** As record(), or the SESSION_NOT_FOUND that says why there is none. */
  recordOf(id: string, caller: SessionCaller): SessionRecord {
    const found = this.record(id, caller);
    if (found === undefined) throw this.notFound(id, caller);
    return found;
  }

  private notFound(id: string, caller: SessionCaller): SessionNotFoundError {
    const ended = this.ended.get(id);
    const reason = ended !== undefined && reaches(caller, ended.owner) ? ended.reason : 'unknown';
    return new SessionNotFoundError(
      id,
      reason,
      reason === 'expired' ? ` for ${Math.round(this.options.ttlMs / 1000)} s (SESSION_TTL_MS)` : '',
    );
  }

  /** Every live session, whoever owns it: for the service itself (janitor, shutdown). */
  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** The live sessions `caller` may reach: its own, or every one for an admin. */
  visibleTo(caller: SessionCaller): Session[] {
    return this.list().filter((s) => reaches(caller, this.owners.ownerOf(s.id)));
  }

  /**
   * Closes a session for a caller: true when this call closed it; false when it is the caller's
   * (or, for an admin, anyone's) and already ended, so a retried close still succeeds; otherwise
   * SESSION_NOT_FOUND, as for an id that never existed, and nothing is closed.
   */
  async closeFor(id: string, caller: SessionCaller): Promise<boolean> {
    if (this.lookup(id, caller) !== undefined) return this.close(id, 'closed', { yieldFor: caller.id });
    const ended = this.ended.get(id);
    if (ended !== undefined && reaches(caller, ended.owner)) return false;
    throw this.notFound(id, caller);
  }

  /**
   * Closes a session; bounded in time even when its page is frozen. False when it was not open.
   * With `yieldFor`, the browser's teardown of its context (CPU every session's calls need) first
   * waits, at most CREATE_YIELD_MAX_MS, while a session call of another key than that one runs:
   * a caller's close, or the janitor's (`yieldFor: ''`, every key's calls).
   */
  async close(
    id: string,
    reason: MissingReason = 'closed',
    options: { yieldFor?: string } = {},
  ): Promise<boolean> {
    const session = this.sessions.get(id);
    if (session === undefined) return false;
    this.forget(id, reason);
    session.ended = reason;
    if (options.yieldFor !== undefined && session.release === undefined)
      await this.yieldToOthers(options.yieldFor);
    try {
      await withDeadline(
        session.release === undefined ? closeContext(this.host, session.context) : session.detach(),
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
    // Every way a session ends passes here (close, expiry, shutdown, the browser lost): its
    // downloads go with it. dispose never throws.
    void this.sessions.get(id)?.downloads.dispose();
    // Its event streams send what is left and end.
    const session = this.sessions.get(id);
    session?.log.end(reason);
    this.sessions.delete(id);
    const keepMs = this.options.replayKeepMs ?? 0;
    this.ended.set(id, {
      reason,
      owner: this.owners.remove(id),
      ...(session === undefined || keepMs === 0
        ? {}
        : { kept: { log: session.log, replay: session.replay, until: Date.now() + keepMs } }),
    });
    this.forgetKept(Date.now());
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
  /**
   * The log and replay pictures of a session `caller` may reach: an open one's, or a closed one's
   * within REPLAY_KEEP_MS; undefined otherwise (another owner's is as an unknown one).
   */
  record(id: string, caller: SessionCaller): SessionRecord | undefined {
    const open = this.lookup(id, caller);
    if (open !== undefined) return { log: open.log, replay: open.replay };
    const ended = this.ended.get(id);
    if (ended?.kept === undefined || !reaches(caller, ended.owner) || ended.kept.until <= Date.now())
      return undefined;
    return { log: ended.kept.log, replay: ended.kept.replay };
  }

  /** Lets go of kept records past their time, and of the oldest past MAX_KEPT_SESSIONS. */
  private forgetKept(now: number): void {
    const kept = [...this.ended.values()].filter((e) => e.kept !== undefined);
    let over = kept.length - MAX_KEPT_SESSIONS;
    for (const entry of kept) {
      if (entry.kept !== undefined && (entry.kept.until <= now || over > 0)) {
        if (entry.kept.until > now) over -= 1;
        delete entry.kept;
      }
    }
  }

  async sweep(now = Date.now()): Promise<number> {
    this.forgetKept(now);
    const idle = this.list().filter((s) => !s.busy && now - s.lastUsedAt > this.options.ttlMs);
    await Promise.all(
      idle.map(async (s) => {
        this.logger.info({ sessionId: s.id, idleMs: now - s.lastUsedAt }, 'session expired');
        this.hooks.expired?.();
        await this.close(s.id, 'expired', { yieldFor: '' });
      }),
    );
    return idle.length;
  }

  /** When the next slot frees at the latest: of any owner, or of `owner` only when given. */
  private nextExpiryMs(owner?: string): number {
    const now = Date.now();
    let soonest = this.options.ttlMs;
    for (const s of this.sessions.values()) {
      if (owner !== undefined && this.owners.ownerOf(s.id) !== owner) continue;
      soonest = Math.min(soonest, Math.max(0, s.lastUsedAt + this.options.ttlMs - now));
    }
    return soonest + this.options.janitorIntervalMs;
  }

  /** Why a session ended, while the ended ones are remembered (dispatch maps in-flight errors by it). */
  endedReason(id: string): MissingReason | undefined {
    return this.ended.get(id)?.reason;
  }

  /** The local browser died (all its sessions), or one remote browser server went away (its own). */
  private onBrowserLost(browser?: Browser): void {
    const reason: MissingReason = browser === undefined ? 'browser-restarted' : 'browser-server-lost';
    for (const session of this.list()) {
      // An adopted tab lives in the CDP_URL browser, not in the one that was lost.
      if (session.release !== undefined) continue;
      if (browser !== undefined && session.context.browser() !== browser) continue;
      session.ended = reason;
      this.forget(session.id, reason);
    }
  }

  async closeAll(): Promise<void> {
    this.stopJanitor();
    await this.pool.close();
    await Promise.all(this.list().map((s) => this.close(s.id)));
  }
}
