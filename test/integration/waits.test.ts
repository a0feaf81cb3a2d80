// page.waitFor's conditions (issue 10): an element by selector or ref in a state, a text to appear
// or go, the URL; a timeout says what was seen instead; one condition at a time.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = (path: string) => suite.open(path);

/** Runs a script in the page after a short delay, so the wait starts before the change. */
function later(session_id: string, script: string): Promise<unknown> {
  return suite.service.call('page.evaluate', {
    session_id,
    expression: `(() => { setTimeout(() => { ${script} }, 300); return null; })()`,
  });
}

describe('page.waitFor conditions', () => {
  it('waits for a text to appear and for an element by selector', async () => {
    const s = await open('/projects');
    expect(await suite.service.call('page.waitFor', { session_id: s, text: 'Apollo' })).toEqual({
      state: 'text',
    });
    expect(await suite.service.call('page.waitFor', { session_id: s, selector: 'li' })).toEqual({
      state: 'visible',
    });
    await suite.service.call('session.close', { session_id: s });
  });

  it('waits for a text to go, a ref to be hidden, and the URL', async () => {
    const s = await open('/snapshot');
    await later(s, `document.querySelector('h1').remove();`);
    expect(await suite.service.call('page.waitFor', { session_id: s, textGone: 'Account' })).toEqual({
      state: 'textGone',
    });
    const { snapshot } = await suite.service.call<{ snapshot: string }>('page.snapshot', {
      session_id: s,
      maxChars: 100_000,
    });
    const ref = /button "Greet" \[ref=(e\d+)\]/.exec(snapshot)?.[1];
    expect(ref).toBeDefined();
    await later(s, `document.querySelector('button[type=button]').style.display = 'none';`);
    expect(await suite.service.call('page.waitFor', { session_id: s, ref, state: 'hidden' })).toEqual({
      state: 'hidden',
    });
    await later(s, `location.href = '/static?done=1';`);
    expect(await suite.service.call('page.waitFor', { session_id: s, url: '**/static?done=1' })).toEqual({
      state: 'url',
    });
    expect(await suite.service.call('page.waitFor', { session_id: s, url: '/done=1$/' })).toEqual({
      state: 'url',
    });
    await suite.service.call('session.close', { session_id: s });
  });

  it('a timeout says what was seen instead', async () => {
    const s = await open('/static');
    const text = await suite.service.rpc('page.waitFor', {
      session_id: s,
      text: 'never there',
      timeout: 400,
    });
    expect(text.error?.code).toBe(-32001);
    expect(text.error?.message).toContain('the page reads');
    expect(text.error?.message).toContain('Static content');
    const url = await suite.service.rpc('page.waitFor', { session_id: s, url: '**/elsewhere', timeout: 400 });
    expect(url.error?.code).toBe(-32001);
    expect(url.error?.message).toContain(`${suite.fixture.url}/static`);
    const element = await suite.service.rpc('page.waitFor', {
      session_id: s,
      selector: '#nope',
      timeout: 400,
    });
    expect(element.error?.code).toBe(-32001);
    expect(element.error?.message).toContain('0 element(s) match');
    await suite.service.call('session.close', { session_id: s });
  });

  it('refuses more than one condition, an element state without a target, and no condition', async () => {
    const s = await open('/static');
    for (const params of [{ text: 'a', url: '**' }, { state: 'visible' }, { state: 'load', text: 'a' }, {}]) {
      const reply = await suite.service.rpc('page.waitFor', { session_id: s, ...params });
      expect(reply.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    expect(await suite.service.call('page.waitFor', { session_id: s, state: 'load' })).toEqual({
      state: 'load',
    });
    await suite.service.call('session.close', { session_id: s });
  });
});
