// The event-stream form of seed 002's execute ("long-running tools: SSE for streaming results"):
// a caller that sends Accept: text/event-stream sees its tool call running instead of a silent
// request, and a proxy or client idle timeout never cuts a long call, since an event passes every
// EXECUTE_PROGRESS_INTERVAL_MS.
import type { Response } from 'express';
import { ServiceError } from '../errors/serviceError.js';
import type { Logger } from '../observability/logger.js';
import { withProgressTicks } from '../observability/progressTicks.js';
import { acceptsMediaType, restFailureOf } from './restCommon.js';

/**
 * How often a streamed execute says its call still runs: the MCP transport's pace
 * (MCP_PROGRESS_INTERVAL_MS), often enough for a live "running … s" and to keep idle timeouts of
 * proxies (often 30 to 60 s) from cutting the response, rare enough to cost nothing.
 */
export const EXECUTE_PROGRESS_INTERVAL_MS = 2_000;

/** The media type of the streamed form. */
export const EVENT_STREAM = 'text/event-stream';

/** True when the request asked for the streamed form by name in its Accept header. */
export function wantsEventStream(accept: string | undefined): boolean {
  return acceptsMediaType(accept, EVENT_STREAM);
}

/** One Server-Sent Event: JSON.stringify keeps the data on one line, as `data:` needs. */
function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Answers one tool call as a stream: 200 at once, `progress` events ({tool, elapsedMs}) at once
 * and every EXECUTE_PROGRESS_INTERVAL_MS while it runs, then exactly one `result` (the plain
 * answer's JSON) or `error` ({error: {code, message, data?}}, the REST error body: the status is
 * already 200, so the code says what failed), and the end of the response, whatever happened.
 * The caller going away aborts the call through its CallContext's signal; nothing is written after.
 */
export async function streamExecute(
  res: Response,
  tool: string,
  log: Logger,
  run: () => Promise<unknown>,
): Promise<void> {
  res.status(200).set({
    'content-type': `${EVENT_STREAM}; charset=utf-8`,
    'cache-control': 'no-cache, no-transform',
    // A reverse proxy (nginx) would otherwise hold the events back until the end.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const send = (event: string, data: unknown): void => {
    if (res.writableEnded || res.destroyed) return;
    res.write(frame(event, data));
  };
  try {
    const answer = await withProgressTicks(
      EXECUTE_PROGRESS_INTERVAL_MS,
      (elapsedMs) => send('progress', { tool, elapsedMs }),
      run,
    );
    send('result', answer);
  } catch (error) {
    // Dispatcher calls throw ServiceErrors, already logged by dispatch; anything else is a bug here.
    if (!(error instanceof ServiceError)) {
      const message = error instanceof Error ? error.message : String(error);
      log.error({ err: { message }, tool }, 'streamed execute failed');
    }
    send('error', restFailureOf(error).body);
  } finally {
    res.end();
  }
}
