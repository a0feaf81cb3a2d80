// Hostile pages: none of them may hang a caller or another session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';

let service: TestService;
let fixture: FixtureServer;
let control: string;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startTestService({ MAX_SESSIONS: '12' });
  control = (await service.call<{ session_id: string }>('session.create', {})).session_id;
  await service.call('page.goto', { session_id: control, url: `${fixture.url}/static`, waitUntil: 'load' });
});

afterAll(async () => {
  await service?.close();
  await fixture?.close();
});

async function newSession(path: string): Promise<string> {
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  await service.call('page.goto', { session_id, url: `${fixture.url}${path}`, waitUntil: 'load' });
  return session_id;
}

async function controlStillServes(): Promise<void> {
  const { text } = await service.call<{ text: string }>('page.text', {
    session_id: control,
    timeout: 10_000,
  });
  expect(text).toContain('Static content');
}

async function failure(promise: Promise<unknown>): Promise<RpcCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcCallError);
  return error as RpcCallError;
}

describe('hostile pages', () => {
  it(
    'a page allocating memory without end: the call fails, the session recovers, others serve',
    { timeout: 120_000 },
    async () => {
      const s = await newSession('/memory-hog');
      const error = await failure(
        service.call('page.click', { session_id: s, selector: '#hog', timeout: 60_000 }),
      );
      expect([-32000, -32001]).toContain(error.code);
      await controlStillServes();
      await waitFor(
        async () => {
          const logs = await service.call<{ pageErrors: { message: string }[] }>('logs.pull', {
            session_id: s,
          });
          return logs.pageErrors.some((e) => e.message.includes('crashed'));
        },
        30_000,
        'the out-of-memory crash to be reported',
      );
      const nav = await service.call<{ title: string }>('page.goto', {
        session_id: s,
        url: `${fixture.url}/static`,
        waitUntil: 'load',
      });
      expect(nav.title).toBe('Static');
      await service.call('session.close', { session_id: s });
    },
  );

  it('a beforeunload handler does not block leaving the page or closing the session', async () => {
    const s = await newSession('/beforeunload');
    await service.call('page.click', { session_id: s, selector: 'main' });
    const nav = await service.call<{ title: string }>('page.goto', {
      session_id: s,
      url: `${fixture.url}/static`,
      waitUntil: 'load',
    });
    expect(nav.title).toBe('Static');
    await service.call('page.goto', { session_id: s, url: `${fixture.url}/beforeunload`, waitUntil: 'load' });
    await service.call('page.click', { session_id: s, selector: 'main' });
    expect(await service.call('session.close', { session_id: s })).toEqual({ ok: true, closed: true });
  });

  it('a prompt is dismissed (null) and recorded', async () => {
    const s = await newSession('/prompt');
    await service.call('page.click', { session_id: s, selector: '#ask' });
    const { text } = await service.call<{ text: string }>('page.text', {
      session_id: s,
      selector: '#answer',
    });
    expect(text).toBe('answer: null');
    const logs = await service.call<{ console: { type: string; text: string }[] }>('logs.pull', {
      session_id: s,
    });
    expect(logs.console).toContainEqual(
      expect.objectContaining({ type: 'dialog', text: expect.stringContaining('prompt: name?') as unknown }),
    );
    await service.call('session.close', { session_id: s });
  });

  it('downloads do not hang: a navigation to an attachment answers with the download (files.test.ts has the rest)', async () => {
    const s = (await service.call<{ session_id: string }>('session.create', {})).session_id;
    const nav = await service.call<{ download?: { name: string; state: string } }>('page.goto', {
      session_id: s,
      url: `${fixture.url}/download`,
      waitUntil: 'load',
      timeout: 20_000,
    });
    expect(nav.download).toMatchObject({ name: 'file.bin', state: 'saved' });
    await service.call('page.goto', {
      session_id: s,
      url: `${fixture.url}/download-link`,
      waitUntil: 'load',
    });
    await service.call('page.click', { session_id: s, selector: '#dl' });
    const { text } = await service.call<{ text: string }>('page.text', { session_id: s });
    expect(text).toContain('Download');
    await service.call('session.close', { session_id: s });
  });

  it('a page opening 100 popups: the caller returns, popups past the cap are closed, others serve', async () => {
    const s = await newSession('/popups?n=100');
    await service.call('page.click', { session_id: s, selector: '#open', timeout: 30_000 });
    await waitFor(
      async () => {
        const logs = await service.call<{ console: { type: string }[] }>('logs.pull', { session_id: s });
        return logs.console.filter((c) => c.type === 'popup').length > 0;
      },
      20_000,
      'popups to be recorded',
    );
    const open = await service.call<{ result: number }>('page.evaluate', {
      session_id: s,
      expression: '1 + 1',
    });
    expect(open.result).toBe(2);
    await controlStillServes();
    expect(await service.call('session.close', { session_id: s })).toEqual({ ok: true, closed: true });
  });
});
