import { ERRORS, type ErrorName } from './catalogue.js';

export type ErrorData = Record<string, unknown>;

/**
 * The one base of every error a caller may see: it carries its catalogue entry (name and code), a
 * message that says what to do next, and data. Domain errors extend it; dispatch only adds the
 * method to them, and classifies foreign errors (Playwright's, the platform's) onto it once.
 */
export class ServiceError extends Error {
  readonly code: number;
  readonly errorName: ErrorName;
  readonly data: ErrorData | undefined;

  constructor(name: ErrorName, message?: string, data?: ErrorData, cause?: unknown) {
    super(message ?? ERRORS[name].message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.errorName = name;
    this.code = ERRORS[name].code;
    this.data = data;
  }
}

/** The caller went away before its call reached the browser. */
export class CallerGoneError extends ServiceError {
  constructor(method: string) {
    super(
      'RESOURCE_UNAVAILABLE',
      `${method} was not run: the caller disconnected while it waited for the session`,
      { reason: 'caller-gone' },
    );
  }
}

/** Errors of calls refused before they did anything (refusedBeforeRun). */
const notRun = new WeakSet<Error>();

/**
 * Marks an error as a refusal before the call did anything (the session's quota, MAX_SESSIONS, no
 * browser, a dialog that already waits): a repeat with the same idempotency_key runs the call then,
 * as the refusal's advice to retry asks, rather than getting the refusal again.
 */
export function refusedBeforeRun<E extends Error>(error: E): E {
  notRun.add(error);
  return error;
}

/** Whether a call's error says it never ran: a caller gone before its turn, or refusedBeforeRun. */
export function neverRan(error: unknown): boolean {
  return error instanceof CallerGoneError || (error instanceof Error && notRun.has(error));
}

/**
 * How far a call got when it stopped because every caller waiting for it had left: `done` units
 * (characters typed) of the method named. An idempotency_key keeps this instead of an answer, and
 * the next call with the key continues from it (MethodContext resume).
 */
export interface PartWay {
  method: string;
  done: number;
}

/** Errors of calls cut short by their callers leaving, with how far they got (stoppedPartWay). */
const partWay = new WeakMap<Error, PartWay>();

/**
 * Marks an error as a call cut short because its callers left, `progress` in: the key's retry
 * continues the call from there rather than getting this error as the key's answer.
 */
export function stoppedPartWay<E extends Error>(error: E, progress: PartWay): E {
  partWay.set(error, progress);
  return error;
}

/** How far a call cut short by its callers leaving got (stoppedPartWay), if that is what stopped it. */
export function partWayOf(error: unknown): PartWay | undefined {
  return error instanceof Error ? partWay.get(error) : undefined;
}

/**
 * A call's error with data the layer around the handler adds (a failed call's trace): dispatch maps
 * `error` as it would alone, then adds `extra` to its data.
 */
export class ErrorWithData extends Error {
  constructor(
    readonly error: unknown,
    readonly extra: ErrorData,
  ) {
    super(error instanceof Error ? error.message : String(error));
    this.name = 'ErrorWithData';
  }
}
