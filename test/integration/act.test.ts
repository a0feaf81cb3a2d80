// page.act (issue 11): a whole form in one round trip, stopping at the first failing step, with
// expectations, on the fixture app's /widgets page.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ACT_STEPS } from '../../src/methods/page/pageAct.js';
import { useServiceSuite } from '../helpers/suite.js';
import { rpcFailure } from '../helpers/boundSession.js';

const suite = useServiceSuite();

interface StepResult {
  method?: string;
  ok?: false;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}
interface ActResult {
  ok: boolean;
  failedAt?: number;
  steps: StepResult[];
}

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open(path = '/widgets') {
  const session_id = await suite.open(path);
  opened.push(session_id);
  const call = <T = ActResult>(method: string, params: Record<string, unknown> = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  const value = async (selector: string) =>
    (
      await call<{ result: string }>('page.evaluate', {
        expression: `document.querySelector('${selector}').value`,
      })
    ).result;
  return { call, value };
}

describe('page.act', () => {
  it('fills a whole form in one call, each step answered as its method answers', async () => {
    const s = await open();
    const run = await s.call('page.act', {
      steps: [
        { method: 'page.fill', params: { selector: '#note', value: 'call Ada' } },
        { method: 'page.select', params: { selector: '#size', labels: ['Large'] } },
        { method: 'page.check', params: { selector: '#news' } },
        { method: 'page.type', params: { selector: '#city', text: 'Par' } },
        { expect: { text: 'Parma' } },
        { method: 'page.dblclick', params: { selector: '#dbl' } },
        { expect: { text: 'double-clicked' } },
      ],
    });
    expect(run.ok).toBe(true);
    expect(run).not.toHaveProperty('completed');
    expect(run.failedAt).toBeUndefined();
    // A step that succeeded answers its result alone: the caller knows which method it ran.
    expect(run.steps).toHaveLength(7);
    for (const st of run.steps) expect(Object.keys(st)).toEqual(['result']);
    expect(run.steps[4]?.result).toEqual({ state: 'text' });
    expect(run.steps[1]?.result).toEqual({ selected: ['l'] });
    expect(await s.value('#note')).toBe('call Ada');
    expect(await s.value('#size')).toBe('l');
    expect(
      await s.call<{ result: boolean }>('page.evaluate', {
        expression: "document.querySelector('#news').checked",
      }),
    ).toEqual({ result: true });
  });

  it('leaves out a url the caller has (asked for, or answered before); a redirect and a step alone keep it', async () => {
    const s = await open();
    const widgets = `${suite.fixture.url}/widgets`;
    const settle = `${suite.fixture.url}/settle`;
    const run = await s.call('page.act', {
      steps: [
        { method: 'page.goto', params: { url: settle } },
        { method: 'page.snapshot', params: { interactive: true } },
        { method: 'page.goto', params: { url: `${suite.fixture.url}/redirect?to=/widgets` } },
        { method: 'page.snapshot', params: { interactive: true } },
      ],
    });
    expect(run.ok).toBe(true);
    // The goto landed where it asked: its url says nothing new.
    expect(run.steps[0]?.result).toMatchObject({ title: expect.any(String) as unknown, status: 200 });
    expect(run.steps[0]?.result).not.toHaveProperty('url');
    expect(run.steps[1]?.result).not.toHaveProperty('url');
    expect(run.steps[1]?.result).toHaveProperty('snapshot');
    // A redirect landed elsewhere: that url is news, the snapshot after it then leaves it out.
    expect(run.steps[2]?.result).toMatchObject({ url: widgets });
    expect(run.steps[3]?.result).not.toHaveProperty('url');
    const alone = await s.call('page.act', { steps: [{ method: 'page.snapshot', params: {} }] });
    expect(alone.steps[0]?.result).toMatchObject({ url: widgets });
  });

  it("keeps network.get's url (the request's, not the page's) even when it equals the page URL", async () => {
    const s = await open();
    const widgets = `${suite.fixture.url}/widgets`;
    const pulled = await s.call<{ requests: { id: string; url: string }[] }>('network.pull', {
      onlyErrors: false,
    });
    const doc = pulled.requests.find((r) => r.url === widgets);
    expect(doc, JSON.stringify(pulled.requests)).toBeDefined();
    const run = await s.call('page.act', {
      steps: [
        { method: 'page.snapshot', params: { interactive: true } },
        { method: 'network.get', params: { request_id: doc?.id } },
      ],
    });
    expect(run.ok).toBe(true);
    expect(run.steps[0]?.result).toMatchObject({ url: widgets });
    expect(run.steps[1]?.result).toMatchObject({ url: widgets, method: 'GET' });
  });

  it('stops at the first failing step: its error is in its entry, the steps after it do not run', async () => {
    const s = await open();
    const run = await s.call('page.act', {
      steps: [
        { method: 'page.fill', params: { selector: '#note', value: 'first' } },
        { method: 'page.click', params: { selector: '#nothing-here', timeout: 300 } },
        { method: 'page.fill', params: { selector: '#note', value: 'never' } },
      ],
    });
    expect(run).toMatchObject({ ok: false, failedAt: 1 });
    expect(run.steps).toHaveLength(2);
    // A step that only succeeded has nothing to report: its entry's success says it.
    expect(run.steps[0]).toEqual({ result: {} });
    expect(run.steps[1]).toMatchObject({ method: 'page.click', ok: false, error: { code: -32001 } });
    expect(await s.value('#note')).toBe('first');
  });

  it('fails an expectation that does not come true within its timeout', async () => {
    const s = await open();
    const run = await s.call('page.act', {
      steps: [
        { method: 'page.fill', params: { selector: '#note', value: 'x' } },
        { expect: { text: 'Never shown', timeout: 300 } },
      ],
    });
    expect(run).toMatchObject({ ok: false, failedAt: 1 });
    expect(run.steps[1]?.error?.code).toBe(-32001);
  });

  it('fails a step whose params are wrong with -32602 in its entry', async () => {
    const s = await open();
    const run = await s.call('page.act', { steps: [{ method: 'page.fill', params: { selector: '#note' } }] });
    expect(run).toMatchObject({ ok: false, failedAt: 0 });
    expect(run.steps[0]?.error?.code).toBe(-32602);
  });

  it('caps each step at what is left of its own timeout', async () => {
    const s = await open();
    const run = await s.call('page.act', {
      timeout: 400,
      steps: [{ method: 'page.click', params: { selector: '#nothing-here' } }],
    });
    expect(run.steps[0]?.error?.code).toBe(-32001);
    expect(run.steps[0]?.error?.message).toMatch(/(?:Timeout |in )(3\d\d|400) ?ms/);
  });

  it('checks every step before the first runs: a misspelt method leaves the page untouched', async () => {
    const s = await open();
    await expect(
      s.call('page.act', {
        steps: [
          { method: 'page.fill', params: { selector: '#note', value: 'should not happen' } },
          { method: 'page.clik', params: { selector: '#dbl' } },
        ],
      }),
    ).rejects.toThrow(/step 1: page\.clik is not a method/);
    expect(await s.value('#note')).toBe('');
  });

  it('refuses nesting, a step of another session, a step with both or neither of method and expect, and too many steps', async () => {
    const s = await open();
    const refused = async (steps: unknown[], pattern: RegExp) => {
      const error = await rpcFailure(s.call('page.act', { steps }), -32602);
      expect(error.message).toMatch(pattern);
    };
    await refused([{ method: 'page.act', params: { steps: [] } }], /page\.act is not a method/);
    await refused([{ method: 'session.close' }], /session\.close is not a method/);
    await refused(
      [{ method: 'page.click', params: { session_id: 's_other', selector: '#dbl' } }],
      /leave it out/,
    );
    await refused([{ method: 'page.click', expect: { text: 'x' } }], /exactly one of method and expect/);
    await refused([{}], /exactly one of method and expect/);
    await refused([{ expect: { text: 'x' }, params: {} }], /takes no params/);
    await expect(
      s.call('page.act', {
        steps: Array.from({ length: MAX_ACT_STEPS + 1 }, () => ({ expect: { text: 'x' } })),
      }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(s.call('page.act', { steps: [] })).rejects.toMatchObject({ code: -32602 });
  });
});
