// page.keyboard type's loop: one key press per character, each bounded by what is left of the
// timeout, stopped between two characters when every caller waiting for the call has left. Such a
// stop is not an answer: it says how far the typing got (stoppedPartWay), so the next call with the
// same idempotency_key types the rest of the text, from the next character, not all of it again.
import type { Keyboard } from 'playwright-core';
import { DeadlineError } from '../../errors/deadline.js';
import { ServiceError, stoppedPartWay, type PartWay } from '../../errors/serviceError.js';

export interface TypeKeysOptions {
  /** The method, as resume and stoppedPartWay name it. */
  method: string;
  /** How the errors name the call: "page.keyboard type". */
  what: string;
  /** Milliseconds after each key. */
  pause: number;
  timeout: number;
  /** Aborted when every caller waiting for the call has gone. */
  signal: AbortSignal;
  /** Where an earlier call with the same key stopped, when this one continues it. */
  resume: PartWay | undefined;
  /** Bounds one key press that the page may never ack (pageInput's within). */
  within: <T>(work: Promise<T>, timeoutMs: number, what: string) => Promise<T>;
}

/** Types `chars` from where `resume` says an earlier call stopped (the start without it). */
export async function typeKeys(
  keyboard: Keyboard,
  chars: readonly string[],
  o: TypeKeysOptions,
): Promise<void> {
  const from = o.resume?.method === o.method ? Math.min(o.resume.done, chars.length) : 0;
  const deadline = Date.now() + o.timeout;
  for (let i = from; i < chars.length; i++) {
    if (o.signal.aborted)
      throw stoppedPartWay(
        new ServiceError(
          'RESOURCE_UNAVAILABLE',
          `${o.what} stopped part way: the caller disconnected after ${i} of ${chars.length} characters. A retry with the same idempotency_key types the rest.`,
          { reason: 'caller-gone', typed: i, of: chars.length },
        ),
        { method: o.method, done: i },
      );
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new DeadlineError(o.what, o.timeout, ': typing stopped part way');
    await o.within(keyboard.type(chars[i] ?? '', { delay: o.pause }), remaining, o.what);
  }
}
