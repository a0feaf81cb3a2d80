// agents.evaluations against the real service and a fake agent on /agents: each key sees the
// evaluations it started (in flight while the agent holds them, then finished, ok or error), another
// key sees none, ADMIN_API_KEY sees every one with its principal; limit and clientId; no secret.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFakeAgent, type FakeAgent } from '../helpers/fakeAgent.js';
import { startTestService, waitFor, type JsonRpcReply, type TestService } from '../helpers/testService.js';

const KEY_A = 'evals-key-a-7c1e93b5d2';
const KEY_B = 'evals-key-b-4f08a6c2e9';
const KEY_ADMIN = 'evals-key-admin-1d5b7f3a';
const AGENT_SECRET = 'evals-agent-secret-8e2c4a6b';
const MODEL_KEY = 'sk-evals-model-key-should-never-show';
const INPUT_SECRET = 'input-password-should-never-show';

interface InFlight {
  evaluationId: string;
  tool: string;
  task: string | null;
  startedAt: string;
  clientId: string | null;
  state: 'queued' | 'running';
  elapsedMs: number;
  principal?: string;
}
interface Finished {
  evaluationId: string;
  tool: string;
  task: string | null;
  clientId: string | null;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  outcome: 'ok' | 'error';
  status: string;
  errorCode: number | null;
  errorMessage: string | null;
  outputSize: number | null;
  principal?: string;
}
interface Listing {
  inFlight: InFlight[];
  finished: Finished[];
  inFlightTotal: number;
  finishedTotal: number;
}

let service: TestService;
let logDir: string;
let agent: FakeAgent;
const clientId = randomUUID();
/** The evaluation key A ran in the first test: key B must never see it. */
let evaluationOfA = '';

function principalOf(key: string): string {
  return `key:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

async function rpcAs(key: string, method: string, params: Record<string, unknown>): Promise<JsonRpcReply> {
  const reply = await service.post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), {
    'x-api-key': key,
  });
  expect(reply.status).toBe(200);
  return reply.body as JsonRpcReply;
}

async function evaluationsAs(key: string, params: Record<string, unknown> = {}): Promise<Listing> {
  const reply = await rpcAs(key, 'agents.evaluations', params);
  if (reply.error !== undefined) throw new Error(`agents.evaluations failed: ${JSON.stringify(reply.error)}`);
  return reply.result as unknown as Listing;
}

/** Starts an evaluation with `key` and waits until the fake agent holds it; returns how to answer it. */
async function heldEvaluation(key: string, params: Record<string, unknown>) {
  const answer = rpcAs(key, 'agents.evaluate', { clientId, tool: 'probe', input: {}, ...params });
  const request = await agent.evaluation();
  return {
    answer,
    evaluationId: (request.params as { evaluationId: string }).evaluationId,
    reply: (body: Record<string, unknown>) => agent.send({ jsonrpc: '2.0', id: request.id, ...body }),
  };
}

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'evals-logs-'));
  service = await startTestService({
    API_KEY: `${KEY_A},${KEY_B}`,
    ADMIN_API_KEY: KEY_ADMIN,
    AGENT_SECRET,
    LOG_DIR: logDir,
  });
  agent = await connectFakeAgent(service.url, { clientId, secret: AGENT_SECRET, tools: ['probe'] });
  await waitFor(
    async () =>
      (
        (await rpcAs(KEY_A, 'agents.list', {})).result as { agents: { clientId: string; status: string }[] }
      ).agents.some((a) => a.clientId === clientId && a.status === 'ready'),
    15_000,
    'the fake agent ready',
  );
});

afterAll(async () => {
  await agent?.close();
  await service?.close();
  rmSync(logDir, { recursive: true, force: true });
});

describe('agents.evaluations', () => {
  it('lists an evaluation in flight to the key that started it, to no other key, and to the admin with its principal', async () => {
    const held = await heldEvaluation(KEY_A, {
      name: `Read the projects page ${'x'.repeat(500)}`,
      input: { password: INPUT_SECRET },
      url: 'http://127.0.0.1:9/?token=url-token-should-never-show',
      model: { main_model: { provider: 'openai', model: 'gpt-4.1', api_key: MODEL_KEY } },
    });
    evaluationOfA = held.evaluationId;
    const own = await evaluationsAs(KEY_A);
    expect(own.inFlightTotal).toBe(1);
    const [entry] = own.inFlight;
    expect(entry).toMatchObject({
      evaluationId: held.evaluationId,
      tool: 'probe',
      clientId,
      state: 'running',
    });
    expect(entry?.task).toMatch(/^Read the projects page x+…$/);
    expect(entry?.task?.length).toBeLessThan(200);
    expect(entry?.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(Number.isNaN(Date.parse(entry?.startedAt ?? ''))).toBe(false);
    expect(entry).not.toHaveProperty('principal');

    expect(await evaluationsAs(KEY_B)).toEqual({
      inFlight: [],
      finished: [],
      inFlightTotal: 0,
      finishedTotal: 0,
    });

    const admin = await evaluationsAs(KEY_ADMIN);
    const seen = admin.inFlight.find((e) => e.evaluationId === held.evaluationId);
    expect(seen?.principal).toBe(principalOf(KEY_A));

    for (const listing of [own, admin]) {
      const text = JSON.stringify(listing);
      for (const secret of [MODEL_KEY, INPUT_SECRET, 'url-token-should-never-show', KEY_A, KEY_ADMIN])
        expect(text).not.toContain(secret);
    }

    held.reply({ result: { status: 'success', output: { text: 'Projects' } } });
    expect((await held.answer).error).toBeUndefined();
    const after = await evaluationsAs(KEY_A);
    expect(after.inFlight).toEqual([]);
    expect(after.finished[0]).toMatchObject({
      evaluationId: held.evaluationId,
      clientId,
      outcome: 'ok',
      status: 'success',
      errorCode: null,
      errorMessage: null,
      outputSize: JSON.stringify({ text: 'Projects' }).length,
    });
    expect(Date.parse(after.finished[0]?.endedAt ?? '')).toBeGreaterThanOrEqual(
      Date.parse(after.finished[0]?.startedAt ?? ''),
    );
    expect(JSON.stringify(after)).not.toContain('Projects"');
  });

  it('records an agent error and a refusal as outcome error with their codes, newest first', async () => {
    const failing = await heldEvaluation(KEY_B, {});
    failing.reply({ error: { code: -32000, message: `the page did not load ${'y'.repeat(1000)}` } });
    expect((await failing.answer).error?.code).toBe(-32000);
    const refused = await rpcAs(KEY_B, 'agents.evaluate', { clientId, tool: 'not-offered', input: {} });
    expect(refused.error?.code).toBe(-32004);

    const listed = await evaluationsAs(KEY_B);
    expect(listed.finishedTotal).toBe(2);
    const [newest, older] = listed.finished;
    expect(newest).toMatchObject({
      tool: 'not-offered',
      outcome: 'error',
      status: 'rejected',
      errorCode: -32004,
      clientId,
    });
    expect(older).toMatchObject({
      evaluationId: failing.evaluationId,
      outcome: 'error',
      status: 'error',
      errorCode: -32000,
      outputSize: null,
    });
    expect(older?.errorMessage).toMatch(/^the page did not load y+…$/);
    expect(older?.errorMessage?.length).toBeLessThan(400);
    // Key A's evaluation stays A's: B's list has only its own two.
    expect(evaluationOfA).not.toBe('');
    expect(listed.finished.map((e) => e.evaluationId)).not.toContain(evaluationOfA);
  });

  it('applies limit to each list and filters by clientId; refuses a limit out of bounds', async () => {
    const all = await evaluationsAs(KEY_ADMIN, { limit: 100 });
    expect(all.finishedTotal).toBeGreaterThanOrEqual(3);
    expect(new Set(all.finished.map((e) => e.principal))).toEqual(
      new Set([principalOf(KEY_A), principalOf(KEY_B)]),
    );
    const one = await evaluationsAs(KEY_ADMIN, { limit: 1 });
    expect(one.finished).toHaveLength(1);
    expect(one.finished[0]?.evaluationId).toBe(all.finished[0]?.evaluationId);
    expect(one.finishedTotal).toBe(all.finishedTotal);
    expect(await evaluationsAs(KEY_ADMIN, { clientId: randomUUID() })).toMatchObject({
      finished: [],
      finishedTotal: 0,
    });
    expect((await evaluationsAs(KEY_ADMIN, { clientId })).finishedTotal).toBe(all.finishedTotal);
    for (const limit of [0, 101, 1.5]) {
      const reply = await rpcAs(KEY_A, 'agents.evaluations', { limit });
      expect(reply.error?.code).toBe(-32602);
    }
    expect((await rpcAs(KEY_A, 'agents.evaluations', { since: 1 })).error?.code).toBe(-32602);
  });

  it('writes the principal, never the key, to evaluations.jsonl and the log line', async () => {
    const path = join(logDir, 'evaluations.jsonl');
    const read = () =>
      (existsSync(path) ? readFileSync(path, 'utf8') : '')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as { principal: string; status: string });
    // The log is an append stream: wait for the three evaluations above to reach the file.
    await waitFor(() => read().length >= 3, 10_000, 'three lines in evaluations.jsonl');
    const lines = read();
    expect(new Set(lines.map((l) => l.principal))).toEqual(new Set([principalOf(KEY_A), principalOf(KEY_B)]));
    const logged = service.logs.filter((l) => l.includes('"agent evaluation"'));
    expect(logged.some((l) => l.includes(principalOf(KEY_B)))).toBe(true);
    const everything = readFileSync(path, 'utf8') + service.logs.join('');
    for (const secret of [KEY_A, KEY_B, KEY_ADMIN, MODEL_KEY, INPUT_SECRET])
      expect(everything).not.toContain(secret);
  });
});
