// page.text of a form control answers what it holds now: a textarea's lines, an input's text, a
// select's chosen option, never a password field's value.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = useBoundSessions(suite);

describe('page.text of a form control', () => {
  it('answers its current value', async () => {
    const s = await open('/controls');
    expect(await s.text('#body')).toBe('draft');
    await s.call('page.fill', { selector: '#body', value: 'line one\nline two' });
    expect(await s.text('#body')).toBe('line one\nline two');
    await s.call('page.fill', { selector: '#title', value: 'Groceries' });
    expect(await s.text('#title')).toBe('Groceries');
    expect(await s.text('#kind')).toBe('Rich');
    expect(await s.text('#secret')).toBe('');
    // The page around them still reads as before.
    expect(await s.text('h1')).toBe('Note');
  });
});
