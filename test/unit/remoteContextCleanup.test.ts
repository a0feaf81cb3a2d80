// Every way the service lets go of a context goes through its BrowserSource's closeContext (on the
// browser tier: the proxy login revoked, the endpoint's count released, before the close is sent):
// a creation that fails part-way, one that arrives after its deadline, a pooled context given up.
// A fake source records the calls. test/integration/remoteContextCleanup.test.ts shows the tier's
// side against a real browser server (407 for the login, the count back).
import { EventEmitter } from 'node:events';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrowserSource, BrowserSourceEvents } from '../../src/browser/engine/browserSource.js';
import { OPEN_CONTEXT_TIMEOUT_MS, closeQuietly, openContext } from '../../src/browser/engine/contextPool.js';
import { createLogger } from '../../src/observability/logger.js';

/** A context whose page creation fails (as when the server drops half-way), or that works. */
function fakeContext(pageFails: boolean): BrowserContext {
  const context = {
    addInitScript: async () => undefined,
    exposeBinding: async () => undefined,
    newPage: async () => {
      if (pageFails) throw new Error('Target page, context or browser has been closed');
      return {} as Page;
    },
    close: async () => undefined,
  };
  return context as unknown as BrowserContext;
}

/** A source that makes `next()`'s context, and records what it was asked to close. */
function fakeSource(next: () => Promise<BrowserContext>): BrowserSource & { closed: BrowserContext[] } {
  const closed: BrowserContext[] = [];
  return Object.assign(new EventEmitter<BrowserSourceEvents>(), {
    ready: true,
    headless: true,
    tracesDir: '/nonexistent',
    newContext: next,
    closeContext: async (context: BrowserContext) => {
      closed.push(context);
    },
    start: async () => undefined,
    close: async () => undefined,
    closed,
  });
}

const limits = { clipboardChars: 100 };

afterEach(() => {
  vi.useRealTimers();
});

describe('an abandoned context goes back through its source', () => {
  it('a creation that fails part-way closes its context through the source', async () => {
    const context = fakeContext(true);
    const source = fakeSource(async () => context);
    await expect(openContext(source, limits)).rejects.toThrow(/has been closed/);
    expect(source.closed).toEqual([context]);
  });

  it('a creation that works closes nothing', async () => {
    const source = fakeSource(async () => fakeContext(false));
    await openContext(source, limits);
    expect(source.closed).toEqual([]);
  });

  it('a context that arrives after the creation deadline is closed through the source', async () => {
    vi.useFakeTimers();
    const context = fakeContext(false);
    let arrive: (c: BrowserContext) => void = () => undefined;
    const source = fakeSource(() => new Promise<BrowserContext>((resolve) => (arrive = resolve)));
    const opening = openContext(source, limits).then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(OPEN_CONTEXT_TIMEOUT_MS + 1);
    expect(String(await opening)).toMatch(/deadline/);
    expect(source.closed).toEqual([]);
    arrive(context);
    await vi.waitFor(() => expect(source.closed).toEqual([context]));
  });

  it('a pooled or unused context given up is closed through the source', async () => {
    const context = fakeContext(false);
    const source = fakeSource(async () => context);
    await closeQuietly(source, { context, page: {} as Page }, createLogger('silent'));
    expect(source.closed).toEqual([context]);
  });
});
