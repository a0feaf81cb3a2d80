// `npm run bench -- --only neighbours`: what one hostile page or key costs everyone else. A control
// key reads its own session (page.text, session.list, one after another, no rest) alone, then
// beside each hostile mode run by another key (a console flood, a page-error flood, a history
// flood, a page spinning its CPU, a popup storm, as many reading subscribers as the key may hold,
// session churn, replay exports back to back), all in one run against one service. Each mode reports the control's p50, p99 and
// slowest call against the same control alone, the service's event-loop delay (prom-client's
// nodejs_eventloop_lag_max_seconds, reset by each read of /metrics) and its heap.
import WebSocket from 'ws';
import { RpcClient } from '../systems/service.js';
import { percentile, sleep } from './stats.js';

/** How long the control measures beside each mode, after the mode had HEAD_START_MS to get going. */
export const MODE_MS = 6_000;
export const HEAD_START_MS = 1_000;
/** The targets the issue sets, against the control alone in the same run. */
export const TARGETS = { p50: 1.5, p99: 3, maxCallMs: 2_000, lagMs: 100, heapMb: 512 } as const;
/** Sockets and subscriptions per socket the subscriber mode tries (what one key tried before the cap). */
export const SUBSCRIBER_SOCKETS = 32;
export const SUBSCRIPTIONS_PER_SOCKET = 32;
/** Navigations of the exporting key's session, each leaving a replay picture. */
const EXPORT_PICTURES = 20;
/** How often the heap is read while a mode runs. */
const HEAP_SAMPLE_MS = 500;

export interface ModeResult {
  mode: string;
  calls: number;
  p50: number;
  p99: number;
  maxMs: number;
  failed: number;
  lagMs: number;
  heapMb: number;
  /** What the hostile side got (subscriptions accepted, sessions churned …). */
  note: string;
}

export interface NeighboursResult {
  alone: ModeResult;
  modes: ModeResult[];
}

type Params = Record<string, unknown>;

/** One key's view of the service: calls, and the service's own metrics. */
export class KeyClient {
  readonly rpc: RpcClient;
  constructor(
    readonly port: number,
    readonly key: string,
    timeoutMs: number,
  ) {
    this.rpc = new RpcClient(port, key, timeoutMs);
  }

  async call(method: string, params: Params): Promise<Record<string, unknown>> {
    return (await this.rpc.call(method, params)).result;
  }

  async open(url: string): Promise<string> {
    const created = await this.call('session.create', {});
    const id = String(created.session_id);
    await this.call('page.goto', { session_id: id, url });
    return id;
  }

  /** A metric's value from /metrics (the first sample of that name), or NaN. */
  async metric(name: string): Promise<number> {
    const { body } = await this.rpc.get('/metrics');
    const line = body.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line === undefined ? Number.NaN : Number(line.split(' ').pop());
  }
}

/** A hostile mode: started before the control measures, stopped after; answers what it got. */
export interface HostileMode {
  name: string;
  start(hostile: KeyClient, fixtureUrl: string): Promise<() => Promise<string>>;
}

/** A page of the hostile key running `script` in a loop (setInterval, every 10 ms) until closed. */
function pageLoop(name: string, script: string): HostileMode {
  return {
    name,
    async start(hostile, fixtureUrl) {
      const id = await hostile.open(`${fixtureUrl}/`);
      await hostile.call('page.evaluate', {
        session_id: id,
        expression: `(() => { let n = 0; setInterval(() => { ${script} }, 10); return 1; })()`,
      });
      return async () => {
        await hostile.call('session.close', { session_id: id });
        return '';
      };
    },
  };
}

/** As many reading subscribers on a chatty session as the hostile key may hold. */
const subscribers: HostileMode = {
  name: `${SUBSCRIBER_SOCKETS} sockets × ${SUBSCRIPTIONS_PER_SOCKET} session.subscribe (reading)`,
  async start(hostile, fixtureUrl) {
    const id = await hostile.open(`${fixtureUrl}/`);
    // A chatty session within its budget: 150 console lines a second.
    await hostile.call('page.evaluate', {
      session_id: id,
      expression: `(() => { let n = 0; setInterval(() => { for (let i = 0; i < 3; i++) console.log('chatter ' + n++); }, 20); return 1; })()`,
    });
    const sockets: WebSocket[] = [];
    let accepted = 0;
    let refused = 0;
    let received = 0;
    for (let s = 0; s < SUBSCRIBER_SOCKETS; s++) {
      const socket = new WebSocket(`ws://127.0.0.1:${hostile.port}/rpc`, {
        headers: { 'x-api-key': hostile.key },
      });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      socket.on('message', (data: WebSocket.RawData) => {
        const text = Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
        const message = JSON.parse(text) as { id?: number; result?: unknown; error?: unknown };
        if (message.id === undefined) received++;
        else if (message.error !== undefined) refused++;
        else accepted++;
      });
      for (let i = 0; i < SUBSCRIPTIONS_PER_SOCKET; i++)
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: i + 1,
            method: 'session.subscribe',
            params: { session_id: id },
          }),
        );
    }
    return async () => {
      for (const socket of sockets) socket.close();
      await hostile.call('session.close', { session_id: id });
      return `${accepted} subscriptions accepted, ${refused} refused, ${received} notifications read`;
    };
  },
};

/** The hostile key creating, using and closing sessions back to back. */
const churn: HostileMode = {
  name: 'session churn (create, goto, close)',
  async start(hostile, fixtureUrl) {
    let running = true;
    let cycles = 0;
    let failures = 0;
    const loop = async () => {
      while (running) {
        try {
          const id = await hostile.open(`${fixtureUrl}/`);
          await hostile.call('session.close', { session_id: id });
          cycles++;
        } catch {
          failures++;
          await sleep(50);
        }
      }
    };
    const loops = [loop(), loop()];
    return async () => {
      running = false;
      await Promise.all(loops);
      return `${cycles} sessions churned (${failures} failed)`;
    };
  },
};

/**
 * The hostile key exporting its session again and again (replay.trace and replay.video back to back,
 * each after a page.text, so the session has changed and every export is built anew)
 * from a log filled with the largest entries a page can leave: console lines of 4000 control
 * characters, six bytes each once written as JSON, and a picture after each of 20 navigations.
 */
const exports: HostileMode = {
  name: 'replay exports (trace and video, back to back)',
  async start(hostile, fixtureUrl) {
    const created = await hostile.call('session.create', { replay: true });
    const id = String(created.session_id);
    await hostile.call('page.goto', { session_id: id, url: `${fixtureUrl}/` });
    await hostile.call('page.evaluate', {
      session_id: id,
      expression: `(() => { const s = String.fromCharCode(1).repeat(4000); for (let i = 0; i < 1000; i++) console.log(s + i); return 1; })()`,
    });
    for (let i = 0; i < EXPORT_PICTURES; i++)
      await hostile.call('page.goto', { session_id: id, url: `${fixtureUrl}/?picture=${i}` });
    let running = true;
    const got = { 'replay.trace': 0, 'replay.video': 0, refused: 0 };
    const loop = async (method: 'replay.trace' | 'replay.video') => {
      while (running) {
        try {
          // A call first: the session changed, so the export is made again, not answered from the last.
          await hostile.call('page.text', { session_id: id });
          await hostile.call(method, { session_id: id });
          got[method]++;
        } catch {
          got.refused++;
          await sleep(50);
        }
      }
    };
    const loops = [loop('replay.trace'), loop('replay.video')];
    return async () => {
      running = false;
      await Promise.all(loops);
      await hostile.call('session.close', { session_id: id });
      return `${got['replay.trace']} traces, ${got['replay.video']} videos, ${got.refused} refused`;
    };
  },
};

export const MODES: HostileMode[] = [
  pageLoop('console flood', `for (let i = 0; i < 1000; i++) console.log('flood ' + n++);`),
  pageLoop(
    'page-error flood',
    `for (let i = 0; i < 200; i++) setTimeout(() => { throw new Error('boom'); }, 0);`,
  ),
  pageLoop(
    'history flood',
    `for (let i = 0; i < 200; i++) { history.pushState({}, '', '#p' + n); location.hash = 'h' + n++; }`,
  ),
  pageLoop(
    'a page spinning its CPU',
    `const end = performance.now() + 9; while (performance.now() < end) {}`,
  ),
  pageLoop('popup storm', `window.open('/?popup=' + n++, '_blank');`),
  subscribers,
  churn,
  exports,
];

/** The control's calls for `ms`: page.text and session.list, one after another. */
async function control(
  client: KeyClient,
  session: string,
  ms: number,
): Promise<{ times: number[]; failed: number }> {
  const times: number[] = [];
  let failed = 0;
  const end = Date.now() + ms;
  for (let i = 0; Date.now() < end; i++) {
    const started = performance.now();
    try {
      if (i % 2 === 0) await client.call('page.text', { session_id: session });
      else await client.call('session.list', {});
      times.push(performance.now() - started);
    } catch {
      failed++;
      times.push(performance.now() - started);
    }
  }
  return { times, failed };
}

/** Measures the control beside `run` (or alone): its calls, the loop delay and the heap meanwhile. */
async function measure(mode: string, client: KeyClient, session: string): Promise<ModeResult> {
  await client.metric('nodejs_eventloop_lag_max_seconds'); // resets the delay histogram
  let heap = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      heap = Math.max(heap, await client.metric('nodejs_heap_size_used_bytes'));
      await sleep(HEAP_SAMPLE_MS);
    }
  })();
  const { times, failed } = await control(client, session, MODE_MS);
  sampling = false;
  await sampler;
  const lag = await client.metric('nodejs_eventloop_lag_max_seconds');
  return {
    mode,
    calls: times.length,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    maxMs: Math.max(...times),
    failed,
    lagMs: lag * 1000,
    heapMb: heap / 1024 / 1024,
    note: '',
  };
}

export async function measureNeighbours(
  control: KeyClient,
  hostile: KeyClient,
  fixtureUrl: string,
  log: (msg: string) => void,
): Promise<NeighboursResult> {
  const session = await control.open(`${fixtureUrl}/`);
  // The first calls of a fresh service warm its code and the page: not part of "alone".
  await measure('warm-up', control, session);
  const alone = await measure('alone', control, session);
  log(`alone: p50 ${alone.p50.toFixed(1)} ms, p99 ${alone.p99.toFixed(1)} ms`);
  const modes: ModeResult[] = [];
  // NEIGHBOURS_MODES=churn,console: only the modes whose name contains one of these words.
  const only = process.env.NEIGHBOURS_MODES?.split(',').filter((w) => w !== '');
  for (const mode of MODES.filter((m) => only === undefined || only.some((w) => m.name.includes(w)))) {
    const stop = await mode.start(hostile, fixtureUrl);
    await sleep(HEAD_START_MS);
    const result = await measure(mode.name, control, session);
    const got = await stop();
    result.note = got;
    modes.push(result);
    log(
      `${mode.name}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.maxMs.toFixed(0)} ms, lag ${result.lagMs.toFixed(0)} ms ${got}`,
    );
    await sleep(HEAD_START_MS);
  }
  await control.call('session.close', { session_id: session });
  return { alone, modes };
}

/** The report's section: each mode against the control alone, with the targets. */
export function neighboursSection(r: NeighboursResult): string[] {
  const ratio = (v: number, base: number) => `${(v / base).toFixed(2)}×`;
  const met = (ok: boolean) => (ok ? '✅' : '❌');
  const rows = r.modes.map((m) => {
    const p50 = m.p50 / r.alone.p50;
    const p99 = m.p99 / r.alone.p99;
    return `| ${m.mode} | ${m.calls} | ${m.p50.toFixed(1)} (${ratio(m.p50, r.alone.p50)} ${met(p50 <= TARGETS.p50)}) | ${m.p99.toFixed(1)} (${ratio(m.p99, r.alone.p99)} ${met(p99 <= TARGETS.p99)}) | ${m.maxMs.toFixed(0)} ${met(m.maxMs <= TARGETS.maxCallMs)} | ${m.failed} | ${m.lagMs.toFixed(0)} ${met(m.lagMs <= TARGETS.lagMs)} | ${m.heapMb.toFixed(0)} ${met(m.heapMb <= TARGETS.heapMb)} | ${m.note} |`;
  });
  return [
    '## Neighbours: a control key beside each hostile page or key (`--only neighbours`)',
    '',
    `The control key reads its own session (page.text and session.list, one after another, no rest) for ${MODE_MS / 1000} s alone, then for ${MODE_MS / 1000} s beside each mode another key runs (started ${HEAD_START_MS / 1000} s before). Targets: p50 ≤ ${TARGETS.p50}× and p99 ≤ ${TARGETS.p99}× the control alone, no call over ${TARGETS.maxCallMs} ms, event-loop delay ≤ ${TARGETS.lagMs} ms, heap ≤ ${TARGETS.heapMb} MB.`,
    '',
    `Alone: ${r.alone.calls} calls, p50 ${r.alone.p50.toFixed(1)} ms, p99 ${r.alone.p99.toFixed(1)} ms, slowest ${r.alone.maxMs.toFixed(0)} ms, loop delay ${r.alone.lagMs.toFixed(0)} ms, heap ${r.alone.heapMb.toFixed(0)} MB.`,
    '',
    '| beside | control calls | p50 ms | p99 ms | slowest ms | failed | loop delay ms | heap MB | the hostile side got |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ];
}
