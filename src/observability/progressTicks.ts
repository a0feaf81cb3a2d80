// What a caller of a long call sees meanwhile: ticks while it runs (runner SSE progress events, MCP progress notifications).
/**
 * Runs `run` and calls `tick` with the milliseconds since it started: once at once, then every
 * `intervalMs` until it settles, and never after. A browser call cannot say how far along it is,
 * only that it still runs; what a tick sends (an SSE event, a progress notification) is the caller's.
 */
export async function withProgressTicks<T>(
  intervalMs: number,
  tick: (elapsedMs: number) => void,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  tick(0);
  const ticker = setInterval(() => tick(Math.round(performance.now() - started)), intervalMs);
  try {
    return await run();
  } finally {
    clearInterval(ticker);
  }
}
