// Nothing secret reaches a log line (issue 12, finding 7): URLs in logs lose their userinfo and
// query values, and free text from pages reaches the log only at debug, cut. Every line of a run
// seeded with secrets in each of those places is searched for them.
import { describe, expect, it } from 'vitest';
import { MAX_LOGGED_STRING_CHARS } from '../../src/observability/scrub.js';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { RpcCallError, startTestService, type TestService } from '../helpers/testService.js';

const servers = useFixtureAndDecoy();

/** The call's JSON-RPC error (the test fails if it succeeded). */
async function failure(service: TestService, method: string, params: unknown): Promise<RpcCallError> {
  const error = await service.call(method, params).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof RpcCallError)) throw new Error(`${method} did not fail with a JSON-RPC error`);
  return error;
}

/** Drives a session through every place a secret used to reach the log; returns the secrets. */
async function seedSecrets(service: TestService): Promise<string[]> {
  const { fixture, decoy } = servers;
  const secrets = {
    password: 'pw-SECRET-userinfo-1',
    blockedQuery: 'SECRET-blocked-query-2',
    timeoutQuery: 'SECRET-timeout-query-3',
    pageText: 'SECRET-page-exception-4',
    fragment: 'SECRET-fragment-5',
  };
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  // A URL outside the list, with a password and a token: NAVIGATION_BLOCKED.
  const blocked = await failure(service, 'page.goto', {
    session_id,
    url: `http://user:${secrets.password}@127.0.0.2:${decoy.port}/x?token=${secrets.blockedQuery}#t=${secrets.fragment}`,
  });
  expect(blocked.code).toBe(-32011);
  // A navigation that times out, with a token in its query: TIMEOUT.
  const slow = await failure(service, 'page.goto', {
    session_id,
    url: `${fixture.url}/slow?ms=5000&token=${secrets.timeoutQuery}`,
    waitUntil: 'load',
    timeout: 200,
  });
  expect(slow.code).toBe(-32001);
  // A page exception whose message is the page's own words: ACTION_FAILED, the text to the caller.
  await service.call('page.goto', { session_id, url: `${fixture.url}/static`, waitUntil: 'load' });
  const thrown = await failure(service, 'page.evaluate', {
    session_id,
    expression: `(() => { throw new Error(${JSON.stringify(secrets.pageText)}); })()`,
  });
  expect(thrown.message).toContain(secrets.pageText);
  await service.call('session.close', { session_id });
  expect(decoy.hits).toEqual([]);
  return Object.values(secrets);
}

describe('secrets never reach a log line', () => {
  it('at the default level (info): no URL secret and no page text', async () => {
    const service = await startTestService();
    try {
      const secrets = await seedSecrets(service);
      const lines = service.logs.join('');
      expect(lines).toContain('"outcome":"NAVIGATION_BLOCKED"');
      expect(lines).toContain('"outcome":"TIMEOUT"');
      for (const secret of secrets) expect(lines, secret).not.toContain(secret);
    } finally {
      await service.close();
    }
  });

  it('at debug: URL secrets are still gone, page text is logged cut', async () => {
    const service = await startTestService({ LOG_LEVEL: 'debug' });
    try {
      const secrets = await seedSecrets(service);
      const urlSecrets = secrets.filter((s) => !s.includes('page-exception'));
      const lines = service.logs.join('');
      expect(lines).toContain('rpc call failed: detail');
      expect(lines).toContain('SECRET-page-exception-4');
      for (const secret of urlSecrets) expect(lines, secret).not.toContain(secret);
      // Userinfo and query values are replaced, the rest of the URL stays readable.
      expect(lines).toContain(`http://***@127.0.0.2:${servers.decoy.port}/x?token=***`);

      const { session_id } = await service.call<{ session_id: string }>('session.create', {});
      const long = 'x'.repeat(MAX_LOGGED_STRING_CHARS * 5);
      await failure(service, 'page.evaluate', {
        session_id,
        expression: `(() => { throw new Error('${long}'); })()`,
      });
      await service.call('session.close', { session_id });
      for (const line of service.logs.join('').split('\n').filter(Boolean)) {
        expect(line).not.toContain(long.slice(0, MAX_LOGGED_STRING_CHARS + 1));
      }
    } finally {
      await service.close();
    }
  });
});
