// The rule the egress proxy applies once it has resolved a name the allow-list admitted: an
// internal address must be admitted by the list itself. Made-up names only; nothing is resolved.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { pinnedLookup, resolveUpstream, type HostLookup } from '../../src/browser/network/resolveUpstream.js';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';

const ANSWERS: Record<string, LookupAddress[]> = {
  'app.test': [{ address: '127.0.0.2', family: 4 }],
  'lan.test': [{ address: '192.168.1.20', family: 4 }],
  'meta.test': [{ address: '169.254.169.254', family: 4 }],
  'six.test': [{ address: 'fd00::5', family: 6 }],
  'mapped.test': [{ address: '::ffff:10.0.0.9', family: 6 }],
  'public.test': [{ address: '203.0.113.7', family: 4 }],
  'mixed.test': [
    { address: '203.0.113.7', family: 4 },
    { address: '10.0.0.9', family: 4 },
  ],
  localhost: [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ],
  'svc.localhost': [{ address: '10.0.0.9', family: 4 }],
};

function fakeLookup(calls: string[] = []): HostLookup {
  return (name) => {
    calls.push(name);
    const answer = ANSWERS[name];
    if (answer === undefined)
      return Promise.reject(Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(answer);
  };
}

/** The target of a plain request to http://host:port/, judged by `policy` as the proxy does. */
function target(policy: UrlPolicy, host: string, port = 8080) {
  return {
    host,
    port,
    admits: (address: string) => policy.checkRequest(`http://${address}:${port}/`).allowed,
  };
}

const NAMES_ONLY = new UrlPolicy(/^https?:\/\/(app|lan|meta|six|mapped|public|mixed)\.test(:\d+)?(\/|$)/);

describe('resolveUpstream', () => {
  it.each([
    ['app.test', '127.0.0.2, a loopback address'],
    ['lan.test', '192.168.1.20, a private address'],
    ['meta.test', '169.254.169.254, a link-local address'],
    ['six.test', 'fd00::5, a private address'],
    ['mapped.test', '::ffff:10.0.0.9, a private address'],
    ['mixed.test', '10.0.0.9, a private address'],
  ])('refuses %s, a listed name whose answer is internal and not listed', async (host, what) => {
    const upstream = await resolveUpstream(target(NAMES_ONLY, host), NAMES_ONLY, fakeLookup());
    expect(upstream.refused).toBe(true);
    if (!upstream.refused) return;
    expect(upstream.reason).toContain(`${host} resolves to ${what}`);
    expect(upstream.reason).toContain('ALLOW_HOST_REGEX');
  });

  it('passes a public answer on, every address of it', async () => {
    expect(await resolveUpstream(target(NAMES_ONLY, 'public.test'), NAMES_ONLY, fakeLookup())).toEqual({
      refused: false,
      addresses: [{ address: '203.0.113.7', family: 4 }],
    });
  });

  it('admits an internal address the list names too (the mapped one as its IPv4 address)', async () => {
    const policy = new UrlPolicy(
      /^https?:\/\/(app\.test|mapped\.test|six\.test|127\.0\.0\.2|10\.0\.0\.9|\[fd00::5\])(:\d+)?(\/|$)/,
    );
    for (const host of ['app.test', 'mapped.test', 'six.test']) {
      const upstream = await resolveUpstream(target(policy, host), policy, fakeLookup());
      expect(upstream.refused, host).toBe(false);
    }
  });

  it('the list must admit the address on the same port', async () => {
    const policy = new UrlPolicy(/^https?:\/\/(app\.test(:\d+)?|127\.0\.0\.2:9999)(\/|$)/);
    expect((await resolveUpstream(target(policy, 'app.test', 8080), policy, fakeLookup())).refused).toBe(
      true,
    );
    expect((await resolveUpstream(target(policy, 'app.test', 9999), policy, fakeLookup())).refused).toBe(
      false,
    );
  });

  it('localhost and *.localhost reach loopback without a listed address, nothing else', async () => {
    const policy = new UrlPolicy(/^https?:\/\/([a-z.]*localhost)(:\d+)?(\/|$)/);
    expect((await resolveUpstream(target(policy, 'localhost'), policy, fakeLookup())).refused).toBe(false);
    const lan = await resolveUpstream(target(policy, 'svc.localhost'), policy, fakeLookup());
    expect(lan.refused).toBe(true);
  });

  it('refuses a name that resolves to an own port, whatever the list says', async () => {
    const policy = new UrlPolicy(/^https?:\/\/(app\.test|127\.0\.0\.2)(:\d+)?(\/|$)/);
    policy.refuseOwnPort(8080, '127.0.0.1');
    const upstream = await resolveUpstream(target(policy, 'app.test', 8080), policy, fakeLookup());
    expect(upstream).toMatchObject({
      refused: true,
      reason: expect.stringContaining('a port no page may reach') as unknown,
    });
  });

  it('does not look up an address: the list judged it as written', async () => {
    const calls: string[] = [];
    const upstream = await resolveUpstream(target(NAMES_ONLY, '10.0.0.9'), NAMES_ONLY, fakeLookup(calls));
    expect(upstream).toEqual({ refused: false, addresses: [{ address: '10.0.0.9', family: 4 }] });
    expect(calls).toEqual([]);
  });

  it('a name that does not resolve rejects with the resolver’s error', async () => {
    await expect(
      resolveUpstream(target(NAMES_ONLY, 'nowhere.test'), NAMES_ONLY, fakeLookup()),
    ).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    await expect(
      resolveUpstream(target(NAMES_ONLY, 'public.test'), NAMES_ONLY, () => Promise.resolve([])),
    ).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });
});

describe('pinnedLookup', () => {
  const checked: LookupAddress[] = [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ];
  function ask(options: LookupOptions): Promise<unknown[]> {
    return new Promise((resolve) => {
      pinnedLookup('app.test', checked)('app.test', options, (...args) => resolve(args));
    });
  }

  it('answers the checked addresses: all of them, the first, or those of one family', async () => {
    expect(await ask({ all: true })).toEqual([null, checked]);
    expect(await ask({})).toEqual([null, '::1', 6]);
    expect(await ask({ family: 4 })).toEqual([null, '127.0.0.1', 4]);
    expect(await ask({ family: 4, all: true })).toEqual([null, [{ address: '127.0.0.1', family: 4 }]]);
  });

  it('never answers synchronously', () => {
    let answered = false;
    pinnedLookup('app.test', checked)('app.test', {}, () => (answered = true));
    expect(answered).toBe(false);
  });
});
