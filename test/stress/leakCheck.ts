import { chromiumTree, openFds } from '../helpers/procfs.js';
import type { TestService } from '../helpers/testService.js';

export interface LeakSnapshot {
  chromiumProcesses: number;
  fds: number;
  sessions: number;
}

export async function snapshot(service: TestService): Promise<LeakSnapshot> {
  const { sessions } = await service.call<{ sessions: unknown[] }>('session.list');
  return { chromiumProcesses: chromiumTree().length, fds: openFds(), sessions: sessions.length };
}

/** create → goto → text → close, n times, one at a time. Progress every `every` cycles. */
export async function runCycles(
  service: TestService,
  url: string,
  n: number,
  progress?: (done: number) => void,
  every = 100,
): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    await service.call('page.goto', { session_id, url, waitUntil: 'load' });
    await service.call('page.text', { session_id });
    await service.call('session.close', { session_id });
    if (progress && i % every === 0) progress(i);
  }
}

/**
 * A baseline to compare against: taken once the service is idle and the context pool has refilled,
 * i.e. when the Chromium process count has stayed the same for `stableMs`.
 */
export async function settledSnapshot(
  service: TestService,
  stableMs = 2000,
  timeoutMs = 30_000,
): Promise<LeakSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last = await snapshot(service);
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await snapshot(service);
    if (now.chromiumProcesses !== last.chromiumProcesses) since = Date.now();
    last = now;
    if (Date.now() - since >= stableMs) return now;
  }
  return last;
}
