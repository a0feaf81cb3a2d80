// page.text reads what is rendered: a web component's open shadow root in its place among the
// page's text; with frames, the iframes a person sees, not a display: none one (said in a line).
import { afterEach, describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open() {
  const session_id = await suite.open('/shadow-text');
  opened.push(session_id);
  return (params: Record<string, unknown> = {}) =>
    suite.service.call<{ text: string }>('page.text', { session_id, ...params });
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
});
