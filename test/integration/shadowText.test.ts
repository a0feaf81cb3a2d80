// page.text reads what is rendered: a web component's open shadow root in its place among the
// page's text; with frames, the iframes a person sees, not a display: none one (said in a line).
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const bound = useBoundSessions(suite);

async function open() {
  const s = await bound('/shadow-text');
  return (params: Record<string, unknown> = {}) => s.call<{ text: string }>('page.text', params);
}

describe('page.text reads what is rendered', () => {
  it("a shadow root's text, in its place", async () => {
    const text = await open();
    const { text: main } = await text({ selector: 'main' });
    expect(main).toBe(
      [
        'Release notes',
        'Before the component.',
        'Version 2',
        'Shadow paragraph',
        'After the component.',
      ].join('\n'),
    );
    expect((await text()).text).toContain('Shadow paragraph');
  });

  it('frames: true reads the shown iframe, not the hidden one', async () => {
    const text = await open();
    const { text: all } = await text({ frames: true });
    expect(all).toContain('Visible frame text');
    expect(all).not.toContain('Hidden frame text');
    expect(all).toContain('--- 1 hidden frame not read ---');
  });

  it('reads by any selector: CSS at once, and what only Playwright finds (its syntax, inside a shadow root, an element still to come)', async () => {
    const text = await open();
    expect((await text({ selector: 'main > p' })).text).toBe('Before the component.');
    // Playwright's own syntax, which the document's querySelector refuses.
    expect((await text({ selector: 'p:has-text("After")' })).text).toBe('After the component.');
    expect((await text({ selector: 'role=heading[name="Version 2"]' })).text).toBe('Version 2');
    // CSS whose only match is inside the shadow root: the document's querySelector finds nothing.
    expect((await text({ selector: 'h2' })).text).toBe('Version 2');
    // An element added later is waited for, within the call's timeout.
    const s = await bound('/projects');
    expect(await s.text('#projects li')).toBe('Apollo');
    await s.fails('page.text', { selector: '#nothing', timeout: 300 }, -32001);
  });
});
