// Typed secrets: given at session.create, typed by name with page.fill and page.type, never shown:
// every answer (a field's value in page.text and page.snapshot, page.evaluate, the console log)
// carries <secret:NAME> instead, and no service log line has the value.
import { describe, expect, it } from 'vitest';
import { bindSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite({ LOG_LEVEL: 'debug' });
const PASSWORD = 'hunter2-correct-horse';
const TOKEN = 'tok_5f8a9c';

async function session() {
  const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
    secrets: { PASSWORD, API_TOKEN: TOKEN },
  });
  const s = bindSession(suite.service, session_id);
  await s.call('page.goto', { url: `${suite.fixture.url}/form` });
  return s;
}

describe('typed secrets', () => {
  it('page.fill and page.type put the value in; no answer shows it, and no log line has it', async () => {
    const s = await session();
    try {
      await s.call('page.fill', { selector: '#name', secret: 'PASSWORD' });
      // The page has the real value …
      expect(await s.evaluate('document.querySelector("#name").value.length')).toBe(PASSWORD.length);
      // … and every answer that would show it shows the name instead.
      expect(await s.evaluate('document.querySelector("#name").value')).toBe('<secret:PASSWORD>');
      expect(await s.text('#name')).toBe('<secret:PASSWORD>');
      const { snapshot } = await s.call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 });
      expect(snapshot).toContain('<secret:PASSWORD>');
      expect(snapshot).not.toContain(PASSWORD);
      await s.call('page.click', { selector: '#greet' });
      expect(await s.text('#greeting')).toBe('Hello, <secret:PASSWORD>!');
      await s.evaluate(`console.log("token is", ${JSON.stringify(TOKEN)})`);
      await s.call('page.fill', { selector: '#name', value: '' });
      await s.call('page.type', { selector: '#name', secret: 'API_TOKEN' });
      expect(await s.evaluate('document.querySelector("#name").value')).toBe('<secret:API_TOKEN>');
      const logs = await s.call<{ console: { text: string }[] }>('logs.pull');
      expect(logs.console.map((l) => l.text)).toContain('token is <secret:API_TOKEN>');
      // An error that would quote it quotes the name.
      const failed = await s.fails(
        'page.evaluate',
        { expression: `(() => { throw new Error(${JSON.stringify(PASSWORD)}); })()` },
        -32000,
      );
      expect(failed.message).toContain('<secret:PASSWORD>');
      expect(failed.message).not.toContain(PASSWORD);
      const all = suite.service.logs.join('');
      expect(all).not.toContain(PASSWORD);
      expect(all).not.toContain(TOKEN);
    } finally {
      await s.close();
    }
  });

  it('refuses an unknown secret, a value with a secret, neither, and bad secrets at create', async () => {
    const s = await session();
    try {
      const unknown = await s.fails('page.fill', { selector: '#name', secret: 'NOPE' }, -32602);
      expect(unknown.message).toContain('API_TOKEN, PASSWORD');
      await s.fails('page.fill', { selector: '#name', value: 'x', secret: 'PASSWORD' }, -32602);
      await s.fails('page.fill', { selector: '#name' }, -32602);
      await s.fails('page.type', { selector: '#name' }, -32602);
      await s.fails('page.type', { selector: '#name', secret: 'lower' }, -32602);
    } finally {
      await s.close();
    }
    for (const secrets of [{ lower: 'abcd' }, { SHORT: 'abc' }, { LIST: ['a'] }, 'PASSWORD=x'])
      expect((await suite.service.rpc('session.create', { secrets })).error?.code).toBe(-32602);
  });
});
