// Limits and the allow-list on what a user's own actions send: a rate limit per key (not only per
// IP), a failed create that must not leak a MAX_SESSIONS slot, the HTML cap, and form posts and
// link clicks toward a host outside the list.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFixtureAndDecoy } from '../helpers/suite.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';

const servers = useFixtureAndDecoy();

/** POST /rpc from a chosen loopback source address, so per-IP and per-key limits can be told apart. */
function postFrom(service: TestService, localAddress: string, key: string): Promise<number> {
  const url = new URL(`${service.url}/rpc`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-api-key': key,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('rate limits', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      RATE_LIMIT_MAX: '5',
      API_KEY: 'key-one-0123456789,key-two-0123456789',
    });
  });
  afterAll(async () => service?.close());

  it('a key over its limit is refused from another address too, while another key still passes', async () => {
    for (let i = 0; i < 5; i++) expect(await postFrom(service, '127.0.0.2', 'key-one-0123456789')).toBe(200);
    expect(await postFrom(service, '127.0.0.3', 'key-one-0123456789')).toBe(429);
    expect(await postFrom(service, '127.0.0.3', 'key-two-0123456789')).toBe(200);
  });
});

describe('session slots and caps', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ MAX_SESSIONS: '1', POOL_SIZE: '0', MAX_HTML_CHARS: '500' });
  });
  afterAll(async () => service?.close());

  it('a create that fails in the browser leaks no MAX_SESSIONS slot', async () => {
    const bad = {
      cookies: [
        {
          name: 'a',
          value: 'b',
          domain: '',
          path: '/',
          expires: -1,
          httpOnly: false,
          secure: false,
          sameSite: 'Lax',
        },
      ],
      origins: [],
    };
    for (let i = 0; i < 3; i++) {
      const error = await service.call('session.create', { storageState: bad }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcCallError);
      expect((error as RpcCallError).code).not.toBe(-32003);
    }
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    expect(session_id).toMatch(/^s_/);
    await service.call('session.close', { session_id });
  });

  it('page.content is cut at MAX_HTML_CHARS with truncated:true', async () => {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    await service.call('page.goto', { session_id, url: `${servers.fixture.url}/big`, waitUntil: 'load' });
    const { html, truncated } = await service.call<{ html: string; truncated: boolean }>('page.content', {
      session_id,
    });
    expect(truncated).toBe(true);
    expect(html).toHaveLength(500);
    await service.call('session.close', { session_id });
  });
});

describe('the allow-list on form posts and link clicks', () => {
  let service: TestService;
  let session_id: string;
  beforeAll(async () => {
    service = await startTestService();
    session_id = (await service.call<{ session_id: string }>('session.create', {})).session_id;
  });
  afterAll(async () => service?.close());

  it.each([
    ['a form post', '/form-post', '#send'],
    ['a link click', '/link', '#go'],
  ])('%s toward the decoy reaches nothing and is recorded as blocked', async (_name, path, selector) => {
    servers.decoy.hits.length = 0;
    await service.call('network.pull', { session_id });
    await service.call('page.goto', {
      session_id,
      url: `${servers.fixture.url}${path}?to=${encodeURIComponent(`${servers.decoy.url}/target`)}`,
      waitUntil: 'load',
    });
    await service.call('page.click', { session_id, selector });
    let blocked: { url: string }[] = [];
    await waitFor(
      async () => {
        const { requests } = await service.call<{ requests: { url: string; blocked?: boolean }[] }>(
          'network.pull',
          { session_id },
        );
        blocked = blocked.concat(requests.filter((r) => r.blocked === true));
        return blocked.length > 0;
      },
      15_000,
      'the blocked request to be recorded',
    );
    expect(blocked[0]?.url).toContain('127.0.0.2');
    expect(servers.decoy.hits).toEqual([]);
  });
});
