// A click on a link with a download attribute (the browser process downloads it: no request of the
// page precedes the download) answers once the download is saved, also for the first download of a
// fresh browser, where Chromium announced it ~110 ms after the click answered (bench: download task).
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TASK_REPORT_BYTES, taskRun } from '../fixtures/routes/tasks.js';

const suite = useServiceSuite();
const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

type Report = { ok: boolean; navigated?: boolean; url?: string; downloads?: Record<string, unknown>[] };

async function reports(run: string) {
  const session_id = await suite.open(`/tasks/reports?run=${run}`);
  opened.push(session_id);
  return (params: Record<string, unknown>) =>
    suite.service.call<Report>('page.click', { session_id, ...params });
}

describe('a click on an <a download> link', () => {
  it('reports the saved download, from the first click of a fresh service on', async () => {
    for (let i = 0; i < 3; i++) {
      const run = `dl-${i}-${Date.now()}`;
      const click = await reports(run);
      const report = await click({ selector: 'a[download]' });
      expect(report.downloads).toHaveLength(1);
      expect(report.downloads?.[0]).toMatchObject({
        name: 'report-october.csv',
        bytes: TASK_REPORT_BYTES,
        state: 'saved',
      });
      expect(taskRun(run).downloads).toBe(1);
    }
  }, 120_000);

  it('does not wait for or report a download after a click on a plain link', async () => {
    const click = await reports(`plain-${Date.now()}`);
    const report = await click({ selector: 'main a[href="/tasks/help"]' });
    expect(report.downloads).toBeUndefined();
    expect(report.url).toMatch(/\/tasks\/help$/);
  });
});
