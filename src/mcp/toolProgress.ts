import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../observability/logger.js';
import { withProgressTicks } from '../observability/progressTicks.js';

/**
 * How often a running tool call reports progress when its caller asked for it: often enough that a
 * client resetting its timeout on progress keeps a 30 s page_goto alive, rare enough to cost nothing.
 */
export const MCP_PROGRESS_INTERVAL_MS = 2_000;

type Send = (notification: ServerNotification) => Promise<void>;

/**
 * Runs a tool call and, when the caller sent a progressToken, reports notifications/progress on the
 * call's own response stream: at the start (0), every MCP_PROGRESS_INTERVAL_MS while it runs, and at
 * the end (progress equal to total). The total is unknown until the end: a browser call cannot say
 * how far along it is, only that it is still running.
 */
export async function withProgress<T>(
  token: ProgressToken | undefined,
  tool: string,
  send: Send,
  log: Logger,
  run: () => Promise<T>,
): Promise<T> {
  if (token === undefined) return run();
  let progress = 0;
  const report = (message: string, total?: number): void => {
    const params = { progressToken: token, progress, message, ...(total === undefined ? {} : { total }) };
    // The caller may have gone (its stream closed): the call itself still ends normally.
    send({ method: 'notifications/progress', params }).catch((error: unknown) =>
      log.debug({ err: error, tool }, 'mcp progress not delivered'),
    );
  };
  try {
    return await withProgressTicks(
      MCP_PROGRESS_INTERVAL_MS,
      (elapsedMs) => {
        if (elapsedMs === 0) return report(`${tool} started`);
        progress += 1;
        report(`${tool} running for ${Math.round(elapsedMs / 1000)} s`);
      },
      run,
    );
  } finally {
    progress += 1;
    report(`${tool} finished`, progress);
  }
}
