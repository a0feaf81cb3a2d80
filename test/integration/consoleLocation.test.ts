// Console entries say where the page called console from: the service's console wrapper (which cuts
// long arguments and keeps the budget) is the frame Chromium reports, so it adds the caller's
// url:line:column, which the service takes off the text again.
import { describe, expect, it } from 'vitest';
import { useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();
const bound = useBoundSessions(suite);

interface Entry {
  type: string;
  text: string;
  location?: string;
}

describe('console locations', () => {
  it('names the script file and line of each console call, and leaves the text as the page wrote it', async () => {
    const s = await bound('/console-source');
    const script = `${suite.fixture.url}/console-source.js`;
    let entries: Entry[] = [];
    for (let i = 0; i < 50 && entries.length < 3; i++) {
      entries = [...entries, ...(await s.call<{ console: Entry[] }>('logs.pull')).console];
      if (entries.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const log = entries.find((e) => e.text.startsWith('from line 3'));
    expect(log).toMatchObject({ type: 'log', text: 'from line 3 42' });
    expect(log?.location).toMatch(new RegExp(`^${script.replace(/[.?]/g, '\\$&')}:3:\\d+$`));
    const warn = entries.find((e) => e.type === 'warning');
    expect(warn).toMatchObject({ text: 'two parts' });
    expect(warn?.location).toMatch(/console-source\.js:4:\d+$/);
    // A method whose extra arguments would change what it prints carries no location.
    const count = entries.find((e) => e.text.startsWith('visits'));
    expect(count?.text).toBe('visits: 1');
    for (const entry of entries) expect(entry.text).not.toContain('\u2063');
  });

  it('a call from code with no script URL (page.evaluate) has no location, and its text is whole', async () => {
    const s = await bound('/static');
    await s.evaluate('console.log("evaluated", 1)');
    const { console: entries } = await s.call<{ console: Entry[] }>('logs.pull');
    const evaluated = entries.find((e) => e.text.startsWith('evaluated'));
    expect(evaluated?.text).toBe('evaluated 1');
  });
});
