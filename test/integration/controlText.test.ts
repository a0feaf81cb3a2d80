// page.text of a form control answers what it holds now: a textarea's lines, an input's text, a
// select's chosen option, never a password field's value.
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

describe('page.text of a form control', () => {
  it('answers its current value', async () => {
    const session_id = await suite.open('/controls');
    opened.push(session_id);
    const call = <T>(method: string, params: Record<string, unknown>) =>
      suite.service.call<T>(method, { session_id, ...params });
    const text = async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text;
    expect(await text('#body')).toBe('draft');
    await call('page.fill', { selector: '#body', value: 'line one\nline two' });
    expect(await text('#body')).toBe('line one\nline two');
    await call('page.fill', { selector: '#title', value: 'Groceries' });
    expect(await text('#title')).toBe('Groceries');
    expect(await text('#kind')).toBe('Rich');
    expect(await text('#secret')).toBe('');
    // The page around them still reads as before.
    expect(await text('h1')).toBe('Note');
  });
});
