// session.export: what an agent did on the fixture app becomes a Playwright test that runs and
// passes against the same app (npx playwright test, the real Chromium), with locators by role and
// name; the same test with its asserted text changed fails, so the assertion is live; a typed secret
// is read from the environment, never written into the code.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionExportResult } from '../../client/src/methods.generated.js';
import { runPlaywrightSpec } from '../helpers/playwrightSpec.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
/** Inside the repository, so the spec resolves @playwright/test from its node_modules. */
const runs = join(process.cwd(), 'test', '.export-runs', 'session-export');
afterAll(() => rmSync(runs, { recursive: true, force: true }));
const runSpec = (name: string, code: string, env: Record<string, string> = {}) =>
  runPlaywrightSpec(join(runs, name), code, env);

describe('session.export', () => {
  it('an agent session on the fixture app becomes a Playwright test that passes; a wrong assertion fails', async () => {
    const s = await suite.open('/snapshot');
    const call = <T>(method: string, params: Record<string, unknown> = {}) =>
      suite.service.call<T>(method, { session_id: s, ...params });
    const { snapshot } = await call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 });
    await call('page.fill', { ref: refOf(snapshot, /textbox "Name"/), value: "Grace O'Hara" });
    await call('page.click', { ref: refOf(snapshot, /button "Greet"/) });
    expect((await call<{ text: string }>('page.text', { selector: '#out' })).text).toBe("hello Grace O'Hara");
    // A failed call and a read of the session add nothing.
    await suite.service.rpc('page.click', { session_id: s, selector: '#missing', timeout: 200 });
    await call('cookies.get');

    const exported = await call<SessionExportResult>('session.export', { title: 'greets by name' });
    expect(exported.filename).toBe('agent-session.spec.ts');
    expect(exported.env).toEqual([]);
    expect(exported.steps).toBe(4);
    expect(exported.code).toContain(`await page.goto('${suite.fixture.url}/snapshot');`);
    expect(exported.code).toContain(
      "await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grace O\\'Hara');",
    );
    expect(exported.code).toContain(
      "await page.getByRole('button', { name: 'Greet', exact: true }).click();",
    );
    expect(exported.code).toContain("await expect(page.locator('#out')).toHaveText('hello Grace O\\'Hara');");
    expect(exported.code).not.toContain('#missing');
    expect(exported.code).not.toContain('ref=');
    const { code } = exported;
    const passed = await runSpec('pass', code);
    expect(passed.out).toMatch(/1 passed/);
    expect(passed.code).toBe(0);
    const failed = await runSpec(
      'fail',
      code.replace("toHaveText('hello Grace O\\'Hara')", "toHaveText('hello nobody')"),
    );
    expect(failed.code).not.toBe(0);
    expect(failed.out).toMatch(/1 failed/);
    await call('session.close');
  });

  it('a navigation is exported and the last URL asserted; a typed secret comes from the environment', async () => {
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      secrets: { VISITOR: 'Secret Visitor Name' },
    });
    const call = <T>(method: string, params: Record<string, unknown> = {}) =>
      suite.service.call<T>(method, { session_id: s, ...params });
    await call('page.goto', { url: `${suite.fixture.url}/snapshot` });
    await call('page.act', {
      steps: [
        { method: 'page.fill', params: { selector: '[name=name]', secret: 'VISITOR' } },
        { method: 'page.click', params: { selector: 'text=Greet' } },
      ],
    });
    await call('page.waitFor', { text: 'hello Secret' });
    // An act that stops at a failed step: the steps it ran are exported, the failed one and after are not.
    const failed = await call<{ ok: boolean; failedAt?: number }>('page.act', {
      steps: [
        { method: 'page.fill', params: { selector: '[name=name]', value: 'line one\r\nline two' } },
        { method: 'page.click', params: { selector: '#not-on-this-page', timeout: 300 } },
        { method: 'page.click', params: { selector: 'text=Greet' } },
      ],
    });
    expect(failed).toMatchObject({ ok: false, failedAt: 1 });
    const exported = await call<SessionExportResult>('session.export');
    expect(exported.code).toContain("fill('line one\\r\\nline two');");
    expect(exported.code).toContain('// page.act: step 2 failed');
    expect(exported.code).not.toContain('#not-on-this-page');
    expect(exported.env).toEqual(['VISITOR']);
    expect(exported.code).toContain(`await page.goto('${suite.fixture.url}/snapshot');`);
    expect(exported.code).toContain("await page.locator('[name=name]').fill(process.env.VISITOR ?? '');");
    expect(exported.code).toContain(`await expect(page).toHaveURL('${suite.fixture.url}/snapshot');`);
    expect(exported.code).not.toContain('Secret Visitor Name');
    const passed = await runSpec('secret', exported.code, { VISITOR: 'Secret Visitor Name' });
    expect(passed.out).toMatch(/1 passed/);
    // Bad input is refused.
    const bad = await suite.service.rpc('session.export', { session_id: s, title: '' });
    expect(bad.error?.code).toBe(-32602);
    const unknown = await suite.service.rpc('session.export', { session_id: 's_nope' });
    expect(unknown.error?.code).toBe(-32010);
    await call('session.close');
  });
});
