// The service never dies of a page (issue 12, finding 2): what a page produces is capped before it
// crosses into Node where possible (console text and evaluate results in the page, URLs in every
// entry), the service's heap stays under a bound while a page floods it, and past the memory high
// water new work is refused instead of the process dying.
import { describe, expect, it } from 'vitest';
import { MAX_ENTRY_URL_CHARS } from '../../src/browser/engine/pageGuards.js';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError, startTestService } from '../helpers/testService.js';

/** A flood string: 48 MiB of one-byte characters, as a page would build it. */
const FLOOD_CHARS = 48 * 1024 * 1024;
/** How much the service's heap may grow while a page floods it; the flood is several times this. */
const HEAP_GROWTH_BOUND = 40 * 1024 * 1024;

const suite = useServiceSuite();

const openOn = (path: string) => suite.open(path);

/** Samples the heap while work runs; returns the largest growth over the settled baseline. */
async function peakHeapGrowth(work: () => Promise<unknown>): Promise<number> {
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return peak - baseline;
}

describe('what a page produces is capped before it grows the service', () => {
  it('a huge console.log is cut in the page: the heap barely moves', async () => {
    const s = await openOn('/static');
    const growth = await peakHeapGrowth(() =>
      suite.service.call('page.evaluate', {
        session_id: s,
        expression: `(() => { console.log('x'.repeat(${FLOOD_CHARS})); return 1; })()`,
        timeout: 60_000,
      }),
    );
    const logs = await suite.service.call<{ console: { type: string; text: string }[] }>('logs.pull', {
      session_id: s,
    });
    const flood = logs.console.find((c) => c.type === 'log');
    expect(flood?.text).toContain('cut in the page');
    expect(flood?.text.length ?? Infinity).toBeLessThan(5000);
    expect(growth).toBeLessThan(HEAP_GROWTH_BOUND);
    await suite.service.call('session.close', { session_id: s });
  });

  it('a huge evaluate result is measured in the page and never crosses', async () => {
    const s = await openOn('/static');
    let error: unknown;
    const growth = await peakHeapGrowth(() =>
      suite.service
        .call('page.evaluate', { session_id: s, expression: `'y'.repeat(${FLOOD_CHARS})`, timeout: 60_000 })
        .catch((e: unknown) => (error = e)),
    );
    expect(error).toBeInstanceOf(RpcCallError);
    expect((error as RpcCallError).code).toBe(-32003);
    expect((error as RpcCallError).data).toMatchObject({ size: FLOOD_CHARS + 2 });
    expect(growth).toBeLessThan(HEAP_GROWTH_BOUND);
    // An ordinary result still comes back whole.
    const small = await suite.service.call<{ result: unknown }>('page.evaluate', {
      session_id: s,
      expression: '({ a: [1, "two", null], when: new Date(0) })',
    });
    expect(small.result).toEqual({ a: [1, 'two', null], when: '1970-01-01T00:00:00.000Z' });
    await suite.service.call('session.close', { session_id: s });
  });

  it('requests with huge URLs are kept with their URL cut', async () => {
    const s = await openOn('/static');
    await suite.service.call('page.evaluate', {
      session_id: s,
      expression: `(async () => {
        const u = '/static?q=' + 'a'.repeat(256 * 1024);
        await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(u + i, { method: 'HEAD' }).catch(() => 0)));
        return 1;
      })()`,
      timeout: 120_000,
    });
    const { requests } = await suite.service.call<{ requests: { url: string }[] }>('network.pull', {
      session_id: s,
      onlyErrors: false,
    });
    const long = requests.filter((r) => r.url.includes('/static?q=aaaa'));
    expect(long.length).toBeGreaterThan(0);
    for (const r of long) expect(r.url.length).toBeLessThanOrEqual(MAX_ENTRY_URL_CHARS + 40);
    await suite.service.call('session.close', { session_id: s });
  });
});

describe('the memory watchdog', () => {
  it('past MEMORY_HIGH_WATER_MB new work is refused, and the calls that free memory still run', async () => {
    const tight = await startTestService({ MEMORY_HIGH_WATER_MB: '1' });
    try {
      const refused = await tight.rpc('session.create', {});
      expect(refused.error?.code).toBe(-32005);
      expect(refused.error?.data).toMatchObject({ reason: 'memory', method: 'session.create' });
      expect(refused.error?.data?.retryAfterMs).toBeGreaterThan(0);
      expect((await tight.rpc('session.list', {})).result).toBeDefined();
      expect((await tight.rpc('rpc.discover', {})).result).toBeDefined();
      expect(tight.logs.join('')).toContain('memory past the high water');
    } finally {
      await tight.close();
    }
  });
});
