// Faults: the browser process killed mid-call, a renderer crash. The service must fail fast,
// relaunch, say so on /readyz and /metrics, and serve new sessions afterwards.
import { describe, expect, it } from 'vitest';
import { browserProcesses, chromiumTree } from '../helpers/procfs.js';
import { RpcCallError, TEST_API_KEY, waitFor } from '../helpers/testService.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ POOL_SIZE: '0' });

async function metric(name: string): Promise<number> {
  const res = await fetch(`${suite.service.url}/metrics`, { headers: { 'x-api-key': TEST_API_KEY } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

describe('faults', () => {
  it('a renderer crash is reported and the session recovers with a fresh page of the size it had', async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
    await suite.service.call('page.goto', {
      session_id,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    await suite.service.call('page.setViewport', { session_id, width: 500, height: 400 });
    const renderers = chromiumTree().filter((p) => p.cmdline.includes('--type=renderer'));
    expect(renderers.length).toBeGreaterThan(0);
    for (const r of renderers) process.kill(r.pid, 'SIGKILL');
    let crashReported = false;
    await waitFor(
      async () => {
        const logs = await suite.service.call<{ pageErrors: { message: string }[] }>('logs.pull', {
          session_id,
        });
        crashReported ||= logs.pageErrors.some((e) => e.message.includes('crashed'));
        return crashReported;
      },
      15_000,
      'the crash to be reported',
    );
    const nav = await suite.service.call<{ title: string }>('page.goto', {
      session_id,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    expect(nav.title).toBe('Static');
    const size = await suite.service.call<{ result: number[] }>('page.evaluate', {
      session_id,
      expression: '[innerWidth, innerHeight]',
    });
    expect(size.result).toEqual([500, 400]);
    await suite.service.call('session.close', { session_id });
  });

  it('the browser killed mid-call: RESOURCE_UNAVAILABLE, relaunch, readyz, restart metric, new sessions work', async () => {
    const restartsBefore = await metric('browser_restarts_total');
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {});
    await suite.service.call('page.goto', {
      session_id,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    const inFlight = suite.service.rpc('page.evaluate', {
      session_id,
      expression: 'new Promise(() => {})',
      timeout: 60_000,
    });
    const browsers = browserProcesses();
    expect(browsers.length).toBe(1);
    // Let the evaluate reach the page before the kill.
    await waitFor(
      async () => (await suite.service.call<{ sessions: unknown[] }>('session.list')).sessions.length === 1,
      5000,
      'the session',
    );
    process.kill(browsers[0]?.pid ?? -1, 'SIGKILL');

    const reply = await inFlight;
    expect(reply.error?.code).toBe(-32005);

    const late = await suite.service.call('page.text', { session_id }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(RpcCallError);
    expect([-32010, -32005]).toContain((late as RpcCallError).code);

    await waitFor(
      async () => (await fetch(`${suite.service.url}/readyz`)).status === 200,
      60_000,
      'the browser to be relaunched',
    );
    expect(await metric('browser_restarts_total')).toBe(restartsBefore + 1);

    const gone = await suite.service.call('page.text', { session_id }).catch((e: unknown) => e);
    expect((gone as RpcCallError).code).toBe(-32010);
    expect((gone as RpcCallError).data?.reason).toBe('browser-restarted');

    const fresh = await suite.service.call<{ session_id: string }>('session.create', {});
    const nav = await suite.service.call<{ title: string }>('page.goto', {
      session_id: fresh.session_id,
      url: `${suite.fixture.url}/static`,
      waitUntil: 'load',
    });
    expect(nav.title).toBe('Static');
    await suite.service.call('session.close', { session_id: fresh.session_id });
  });
});
