// A session's Playwright traces: trace.start / trace.stop, and the traces of failed calls when the
// session was created with traceOnFailure. Each trace is a zip in the session's own directory
// (SessionFiles, shared with its downloads and removed when the session ends), t1, t2 … within
// MAX_SESSION_TRACE_BYTES, the failed calls' ones also within MAX_FAILURE_TRACES (oldest deleted).
//
// Where Playwright itself writes while a context traces: the browser's tracesDir (BrowserHost makes
// it a directory of the service's own), one event file per chunk and one network file per trace,
// named after the trace's name, and resources (response bodies, snapshot images) shared by every
// trace of the browser under their SHA-1. A trace's named files are deleted here when it ends; the
// shared ones when the last open context that traced closes (before, another trace may need them).
// Over 350 lines on purpose: the three ways a trace is saved (trace.stop, a failed call, a restart)
// share the one set of files and caps kept here, and split apart they would each need all of it.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { ErrorWithData, ServiceError } from '../../errors/serviceError.js';
import { SessionNotFoundError } from '../engine/browserErrors.js';
import { holdShared, sharedBytes } from './traceShared.js';
import { keptEntry, readFileSlice, type FileSlice, type SessionFiles } from './sessionFiles.js';

export interface TraceLimits {
  /** MAX_SESSION_TRACE_BYTES: the kept traces together. */
  maxSessionBytes: number;
  /** MAX_FAILURE_TRACES: traces of failed calls kept. */
  maxFailureTraces: number;
  /** MAX_TRACE_SHARED_BYTES: the shared resources of the tracesDir, checked as failure tracing restarts. */
  maxSharedBytes: number;
}

export interface TraceDeps {
  limits: TraceLimits;
  /** The browser's tracesDir (BrowserHost.tracesDir). */
  tracesDir: string;
}

export interface KeptTrace {
  trace_id: string;
  bytes: number;
  path: string;
}

interface Entry extends KeptTrace {
  /** A failed call's trace: counted against MAX_FAILURE_TRACES, deleted oldest first. */
  failure: boolean;
}

/** What a failed call's error carries: the kept trace's id, or why it was not kept. */
export type FailureTrace = { trace_id: string } | { trace_refused: string };

type Mode = { kind: 'off' } | { kind: 'manual'; name: string } | { kind: 'failure'; name: string };

function refuse(message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', message, {
    errors: [{ path: '/session_id', message, keyword: 'tracing', params: {} }],
  });
}

/** Whether a file of the browser's tracesDir belongs to the trace of this name (s_…-2.trace, s_…-2-chunk3.trace …). */
const named =
  (name: string) =>
  (file: string): boolean =>
    file.startsWith(`${name}.`) || file.startsWith(`${name}-`);

/**
 * A traceOnFailure session starts its tracing afresh after this many succeeding calls, so the
 * network file Playwright keeps for the trace (every request since the start) stays bounded.
 */
export const TRACE_RESTART_CHUNKS = 100;

export class TraceStore {
  private readonly entries = new Map<string, Entry>();
  private mode: Mode = { kind: 'off' };
  private keptBytes = 0;
  private next = 1;
  /** Playwright trace names: the session id and a count, so their files are found by name. */
  private names = 0;
  /** Calls of a traceOnFailure session discarded since its tracing (re)started. */
  private discarded = 0;

  constructor(
    private readonly sessionId: string,
    private readonly context: BrowserContext,
    private readonly files: SessionFiles,
    private readonly deps: TraceDeps,
  ) {
    // Whatever a trace still had in the browser's tracesDir goes with the context, and the shared
    // folders with the last open context that traced.
    const dir = deps.tracesDir;
    const release = holdShared(dir);
    context.once('close', () => {
      this.closed = true;
      // A save still zipping (session.close does not wait for the call in progress) reads files of
      // the shared folders: they go only once it ended.
      void Promise.allSettled(this.saving)
        .then(() => this.removeRaw((f) => f.startsWith(`${this.sessionId}-`)))
        .then(() => release((text) => this.files.warn(text)));
    });
  }

  /**
   * The context closed: no save starts after this. One that started later would read files of the
   * shared folders the close handler is about to remove (it waited only for the saves it saw).
   */
  private closed = false;

  /** Saves of this store in progress (trace.stop, a failed call's trace, a restart). */
  private readonly saving = new Set<Promise<unknown>>();

  /** Runs a save counted in `saving` until it settles. */
  private async tracked<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new SessionNotFoundError(this.sessionId, 'closed');
    const running = work();
    this.saving.add(running);
    try {
      return await running;
    } finally {
      this.saving.delete(running);
    }
  }

  /** Whether failed calls are traced (session.create traceOnFailure). */
  get onFailure(): boolean {
    return this.mode.kind === 'failure';
  }

  /** trace.start: records everything the session does until trace.stop. */
  async start(options: {
    screenshots: boolean;
    snapshots: boolean;
    title?: string | undefined;
  }): Promise<void> {
    if (this.mode.kind === 'failure')
      throw refuse(
        'This session traces its failed calls (session.create traceOnFailure): trace.start is not available on it; create a session without traceOnFailure to record a trace of your own.',
      );
    if (this.mode.kind === 'manual')
      throw refuse('A trace is already recording on this session: call trace.stop first.');
    const name = `${this.sessionId}-${++this.names}`;
    await this.context.tracing.start({ name, ...options });
    this.mode = { kind: 'manual', name };
  }

  /** trace.stop: the trace started by trace.start, kept as a zip. */
  async stop(): Promise<KeptTrace> {
    const mode = this.mode;
    if (mode.kind !== 'manual')
      throw refuse(
        mode.kind === 'failure'
          ? 'This session traces its failed calls (traceOnFailure): there is no trace.start to stop; their trace_id is in each failed call’s error data.'
          : 'No trace is recording on this session: call trace.start first.',
      );
    this.mode = { kind: 'off' };
    const trace_id = `t${this.next++}`;
    const path = await this.files.path(`${trace_id}.zip`);
    try {
      await this.tracked(() => this.context.tracing.stop({ path }));
    } catch (error) {
      // The session closed while the trace was saved: that, not the save's error, is the answer.
      if (!this.files.ended) throw error;
    } finally {
      await this.removeRaw(named(mode.name));
      // A session closed meanwhile (session.close does not wait for the lock): Playwright's save
      // made the directory again; it goes with the session.
      await this.files.removeIfEnded();
    }
    if (this.files.ended) throw new SessionNotFoundError(this.sessionId, 'closed');
    return this.keep({ trace_id, path, bytes: (await stat(path)).size, failure: false });
  }

  /**
   * Keeps a trace another recorder writes (performance.stop's Chromium trace, tN.json) under the
   * same ids, trace.get and MAX_SESSION_TRACE_BYTES as the Playwright traces.
   */
  async keepWritten(write: (path: string) => Promise<void>): Promise<KeptTrace> {
    const trace_id = `t${this.next++}`;
    const path = await this.files.path(`${trace_id}.json`);
    await this.tracked(() => write(path));
    await this.files.removeIfEnded();
    if (this.files.ended) throw new SessionNotFoundError(this.sessionId, 'closed');
    return this.keep({ trace_id, path, bytes: (await stat(path)).size, failure: false });
  }

  /** Turns on the traces of failed calls: tracing runs, a chunk records each call. */
  async traceFailures(): Promise<void> {
    const name = `${this.sessionId}-${++this.names}`;
    await this.context.tracing.start({ name, screenshots: true, snapshots: true });
    // start records a first chunk: nothing is recorded between calls.
    await this.context.tracing.stopChunk();
    this.mode = { kind: 'failure', name };
  }

  /** A call of the session recorded as a chunk; kept as a trace when it fails, discarded otherwise. */
  async around<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      await this.context.tracing.startChunk({ title: method });
    } catch (error) {
      // Tracing is the call's companion, never its cause of failure: the call runs untraced.
      this.files.warn(`${method} ran without a trace: ${firstLine(error)}`);
      return run();
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      throw new ErrorWithData(error, await this.keepFailure());
    }
    const failedStep = failedStepError(result);
    if (failedStep !== undefined) {
      const data: unknown = failedStep.data;
      failedStep.data = { ...(isRecord(data) ? data : {}), ...(await this.keepFailure()) };
      return result;
    }
    try {
      await this.context.tracing.stopChunk();
    } catch (error) {
      // The call succeeded; a chunk that could not be discarded changes nothing of its answer.
      this.files.warn(`the trace of ${method} could not be discarded: ${firstLine(error)}`);
    }
    await this.removeChunks();
    if (++this.discarded >= TRACE_RESTART_CHUNKS) await this.restartFailureTracing(method);
    return result;
  }

  /**
   * Starts the failure tracing afresh: Playwright appends every chunk's requests to the trace's
   * network file, which would otherwise grow for as long as the session lives.
   */
  private async restartFailureTracing(method: string): Promise<void> {
    if (this.mode.kind !== 'failure') return;
    const name = this.mode.name;
    this.discarded = 0;
    try {
      await this.tracked(() => this.context.tracing.stop());
      await this.removeRaw(named(name));
      const shared = await sharedBytes(this.deps.tracesDir);
      if (shared > this.deps.limits.maxSharedBytes) {
        this.mode = { kind: 'off' };
        this.files.warn(
          `traceOnFailure stopped: the resources the browser's traces share hold ${shared} bytes, over MAX_TRACE_SHARED_BYTES (${this.deps.limits.maxSharedBytes}); they go when the last session that traced ends`,
        );
        return;
      }
      await this.traceFailures();
    } catch (error) {
      // The session keeps working; its next calls run untraced (startChunk fails and says so).
      this.files.warn(`tracing could not restart after ${method}: ${firstLine(error)}`);
    }
  }

  /** Reads up to maxBytes of a kept trace from offset. */
  async read(id: string, offset: number, maxBytes: number): Promise<FileSlice & { mime: string }> {
    const entry = keptEntry(
      this.entries,
      id,
      'trace',
      `No trace ${id} in this session: trace.stop and failed calls' error data name the ones it keeps.`,
    );
    return {
      data: await readFileSlice(entry.path, entry.bytes, offset, maxBytes, id),
      size: entry.bytes,
      mime: entry.path.endsWith('.json') ? 'application/json' : 'application/zip',
    };
  }

  private async keepFailure(): Promise<FailureTrace> {
    const trace_id = `t${this.next++}`;
    try {
      const path = await this.files.path(`${trace_id}.zip`);
      await this.tracked(() => this.context.tracing.stopChunk({ path }));
      await this.files.removeIfEnded();
      await this.removeChunks();
      const kept = await this.keep({ trace_id, path, bytes: (await stat(path)).size, failure: true });
      return { trace_id: kept.trace_id };
    } catch (error) {
      return { trace_refused: firstLine(error) };
    }
  }

  /** Keeps a written trace within the caps (failed calls' oldest traces make room), or deletes it. */
  private async keep(entry: Entry): Promise<KeptTrace> {
    const { maxSessionBytes, maxFailureTraces } = this.deps.limits;
    const failures = () => [...this.entries.values()].filter((e) => e.failure);
    // What the traces of trace.stop hold: the older traces of failed calls may make room, those not.
    const fixed = this.keptBytes - failures().reduce((sum, e) => sum + e.bytes, 0);
    if (entry.failure && fixed + entry.bytes <= maxSessionBytes) {
      while (failures().length >= maxFailureTraces) await this.drop(failures()[0]);
      while (this.keptBytes + entry.bytes > maxSessionBytes) await this.drop(failures()[0]);
    }
    if (this.keptBytes + entry.bytes > maxSessionBytes) {
      await rm(entry.path, { force: true });
      throw new ServiceError(
        'LIMIT_REACHED',
        `The trace is ${entry.bytes} bytes; with the ${this.keptBytes} this session keeps it passes MAX_SESSION_TRACE_BYTES (${maxSessionBytes}): it was deleted. Trace fewer steps, or without screenshots and snapshots.`,
        { limit: 'MAX_SESSION_TRACE_BYTES', max: maxSessionBytes, size: entry.bytes, kept: this.keptBytes },
      );
    }
    this.entries.set(entry.trace_id, entry);
    this.keptBytes += entry.bytes;
    return { trace_id: entry.trace_id, bytes: entry.bytes, path: entry.path };
  }

  private async drop(entry: Entry | undefined): Promise<void> {
    if (entry === undefined) return;
    this.entries.delete(entry.trace_id);
    this.keptBytes -= entry.bytes;
    await rm(entry.path, { force: true });
  }

  /**
   * The event files of the failure trace's finished chunks and the network copies of kept ones; its
   * network file stays (Playwright appends every chunk's requests to it, and copies it into a kept one).
   */
  private async removeChunks(): Promise<void> {
    if (this.mode.kind !== 'failure') return;
    const name = this.mode.name;
    await this.removeRaw((f) => named(name)(f) && f !== `${name}.network`);
  }

  /** Deletes the files of the browser's tracesDir that `doomed` picks. */
  private async removeRaw(doomed: (file: string) => boolean): Promise<void> {
    try {
      const dir = this.deps.tracesDir;
      const files = (await readdir(dir)).filter(doomed);
      await Promise.all(files.map((f) => rm(join(dir, f), { force: true })));
    } catch (error) {
      this.files.warn(`could not delete a trace's temporary files: ${String(error)}`);
    }
  }
}

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error of the failed step of an answer that reports one (page.act's ok: false, failedAt and
 * steps): such a call failed as much as one that answers an error, and its trace goes in that error.
 */
function failedStepError(result: unknown): Record<string, unknown> | undefined {
  if (!isRecord(result) || result.ok !== false || typeof result.failedAt !== 'number') return undefined;
  const steps = result.steps;
  const step: unknown = Array.isArray(steps) ? steps[result.failedAt] : undefined;
  return isRecord(step) && isRecord(step.error) ? step.error : undefined;
}

/** What a trace store needs of a session (Session has all three): its id, context and directory. */
export interface TracedSession {
  readonly id: string;
  readonly context: BrowserContext;
  readonly files: SessionFiles;
}

const stores = new WeakMap<TracedSession, TraceStore>();

/** The session's trace store, made on first use. */
export function tracesOf(session: TracedSession, deps: TraceDeps): TraceStore {
  let store = stores.get(session);
  if (store === undefined) {
    store = new TraceStore(session.id, session.context, session.files, deps);
    stores.set(session, store);
  }
  return store;
}

/** The session's trace store when it traces failed calls; undefined (the common case) otherwise. */
export function failureTracing(session: TracedSession): TraceStore | undefined {
  const store = stores.get(session);
  return store?.onFailure === true ? store : undefined;
}
