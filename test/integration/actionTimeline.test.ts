// The action timeline: every call on a session, over HTTP, WebSocket, MCP and the runner's REST
// execute, becomes an `action` entry of the session's event log (read here as the console reads it,
// GET /sessions/{id}/events?since=0&kinds=action): method, masked params, the ref's target line,
// duration, outcome or error code, the report's facts. Typed text and secrets never appear in it.
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

const suite = useServiceSuite();
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Action {
  seq: number;
  kind: 'action';
  method: string;
  params: string;
  target?: string;
  selector?: string;
  page_id: string;
  durationMs: number;
  ok: boolean;
  code?: number;
  error?: string;
  navigated?: boolean;
  url?: string;
}

/** The action entries the session's log holds now, read from the event stream from its start. */
async function actions(sessionId: string, atLeast: number): Promise<Action[]> {
  let found: Action[] = [];
  await waitFor(
    async () => {
      const abort = new AbortController();
      const res = await fetch(`${suite.service.url}/sessions/${sessionId}/events?since=0&kinds=action`, {
        headers: { 'x-api-key': TEST_API_KEY },
        signal: abort.signal,
      });
      const reader = res.body?.getReader();
      let text = '';
      const decoder = new TextDecoder();
      const deadline = Date.now() + 2000;
      // The stream stays open: read what it replays, then let go.
      while (reader !== undefined && Date.now() < deadline) {
        const chunk = await Promise.race([
          reader.read(),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)),
        ]);
        if (chunk === undefined || chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      abort.abort();
      found = text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as Action | { kind: string })
        .filter((e): e is Action => e.kind === 'action');
      return found.length >= atLeast;
    },
    10_000,
    `${atLeast} action entries`,
  );
  return found;
}

describe('the action timeline', () => {
  it('records each call with masked params, its target, duration, outcome and facts', async () => {
    const s = await suite.open('/snapshot');
    const call = (method: string, params: Record<string, unknown> = {}) =>
      suite.service.call<Record<string, unknown>>(method, { session_id: s, ...params });
    const snap = (await call('page.snapshot', { maxChars: 100_000 })) as { snapshot: string };
    const name = refOf(snap.snapshot, /textbox "Name"/);
    await call('page.fill', { ref: name, value: 'Grace Hopper typed' });
    await call('page.click', { selector: 'text=Greet' });
    const failed = await suite.service.rpc('page.click', {
      session_id: s,
      selector: '#missing',
      timeout: 300,
    });
    expect(failed.error?.code).toBe(-32001);
    const port = new URL(suite.fixture.url).port;
    // Refused (credentials in a URL), and recorded with the password masked.
    const blocked = await suite.service.rpc('page.goto', {
      session_id: s,
      url: `http://someone:pw-in-url@127.0.0.1:${port}/projects`,
    });
    expect(blocked.error?.code).toBe(-32011);
    await call('page.goto', { url: `${suite.fixture.url}/projects` });

    const found = await actions(s, 7);
    const byMethod = (m: string) => found.filter((a) => a.method === m);
    expect(found.map((a) => a.method)).toEqual([
      'page.goto',
      'page.snapshot',
      'page.fill',
      'page.click',
      'page.click',
      'page.goto',
      'page.goto',
    ]);
    // Typed text is masked by its length, the ref named by its snapshot line.
    const fill = byMethod('page.fill')[0];
    expect(fill).toMatchObject({
      ok: true,
      target: expect.stringContaining('textbox "Name"') as unknown,
      page_id: 'p1',
    });
    expect(JSON.parse(fill?.params ?? '{}')).toMatchObject({ ref: name, value: '<18 chars>' });
    expect(JSON.stringify(found)).not.toContain('Grace Hopper');
    expect(JSON.stringify(found)).not.toContain('pw-in-url');
    expect(JSON.stringify(found)).not.toContain(s);
    // The failure carries the caller's error code; the navigation its facts.
    expect(byMethod('page.click')[1]).toMatchObject({ ok: false, code: -32001, selector: '#missing' });
    expect(byMethod('page.click')[1]?.error).toContain('300');
    expect(byMethod('page.goto')[1]).toMatchObject({ ok: false, code: -32011 });
    expect(byMethod('page.goto')[1]?.params).toContain('someone:***@');
    expect(byMethod('page.goto')[2]).toMatchObject({ ok: true });
    expect(byMethod('page.goto')[2]?.url).toContain('/projects');
    expect(found.every((a) => Number.isInteger(a.durationMs) && a.durationMs >= 0)).toBe(true);
    // Entries are ordered by seq.
    expect(found.map((a) => a.seq)).toEqual([...found.map((a) => a.seq)].sort((a, b) => a - b));
    await call('session.close');
  });

  it('a typed secret appears by its name only', async () => {
    const { session_id: s } = await suite.service.call<{ session_id: string }>('session.create', {
      url: `${suite.fixture.url}/snapshot`,
      secrets: { PASSWORD: 'hunter2-very-secret' },
    });
    await suite.service.call('page.fill', { session_id: s, selector: '[name=name]', secret: 'PASSWORD' });
    // A page that throws the value back: the entry's error names the secret only.
    const thrown = await suite.service.rpc('page.evaluate', {
      session_id: s,
      expression: "(() => { throw new Error(document.querySelector('[name=name]').value); })()",
    });
    expect(thrown.error?.message).toContain('<secret:PASSWORD>');
    const [fill] = (await actions(s, 2)).filter((a) => a.method === 'page.fill');
    expect(JSON.parse(fill?.params ?? '{}')).toMatchObject({ selector: '[name=name]', secret: 'PASSWORD' });
    expect(JSON.stringify(fill)).not.toContain('hunter2');
    const [evaluated] = (await actions(s, 2)).filter((a) => a.method === 'page.evaluate');
    expect(evaluated?.error).toContain('<secret:PASSWORD>');
    expect(JSON.stringify(evaluated)).not.toContain('hunter2');
    await suite.service.call('session.close', { session_id: s });
  });

  it('every transport records: WebSocket /rpc, MCP and the runner execute', async () => {
    const s = await suite.open('/snapshot');
    // WebSocket /rpc.
    const ws = new WebSocket(`${suite.service.url.replace(/^http/, 'ws')}/rpc`, {
      headers: { 'x-api-key': TEST_API_KEY },
    });
    closers.push(() => ws.terminate());
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const answered = new Promise<void>((resolve) => ws.once('message', () => resolve()));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'page.text',
        params: { session_id: s, selector: 'h1' },
      }),
    );
    await answered;
    // MCP.
    const client = new Client({ name: 'timeline-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.service.url}/mcp?groups=all`), {
        requestInit: { headers: { 'x-api-key': TEST_API_KEY } },
      }),
    );
    closers.push(() => client.close());
    await client.callTool({ name: 'pages_list', arguments: { session_id: s } });
    // The runner's REST execute.
    const executed = await fetch(`${suite.service.url}/sessions/${s}/execute`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name: 'page.text', args: { selector: 'a' } }),
    });
    expect(executed.status).toBe(200);
    const found = await actions(s, 4);
    expect(found.map((a) => a.method)).toEqual(['page.goto', 'page.text', 'pages.list', 'page.text']);
    expect(found.every((a) => a.ok)).toBe(true);
    await suite.service.call('session.close', { session_id: s });
  });
});
