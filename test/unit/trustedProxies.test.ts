// TRUSTED_PROXIES: what start-up accepts and refuses, the client address the one shared function
// (src/ws/clientAddress.ts) derives from a peer and its X-Forwarded-For, and the start-up warning
// for a list that trusts whole ranges.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../src/config/config.js';
import { warnOfExposure } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config/config.js';
import { WIDE_TRUST_HOST_BITS, wideTrustedProxies } from '../../src/config/configProxies.js';
import { createLogger } from '../../src/observability/logger.js';
import { clientAddress } from '../../src/ws/clientAddress.js';
import { configError } from '../helpers/configError.js';

/** The ConfigError loadConfig throws for TRUSTED_PROXIES=value; fails the test when it does not throw one. */
const refusal = (value: string): ConfigError => configError({ TRUSTED_PROXIES: value });

/** A request as Node hands it over: only what the address is read from. */
function request(peer: string | undefined, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

const addressOf = (trusted: string, peer: string | undefined, forwardedFor?: string): string =>
  clientAddress(request(peer, forwardedFor), loadConfig({ TRUSTED_PROXIES: trusted }).trustProxy);

describe('TRUSTED_PROXIES at start-up', () => {
  it('is empty by default: nothing is trusted, not even loopback', () => {
    const config = loadConfig({});
    expect(config.trustedProxies).toEqual([]);
    expect(config.trustProxy('127.0.0.1', 0)).toBe(false);
    expect(config.trustProxy('::1', 0)).toBe(false);
  });

  it('reads addresses, CIDRs, netmasks and range names, trimmed and in lower case', () => {
    const config = loadConfig({
      TRUSTED_PROXIES: ' 10.0.0.5 , 172.28.0.0/24,FD00::/64, LOOPBACK,192.168.0.0/255.255.0.0',
    });
    expect(config.trustedProxies).toEqual([
      '10.0.0.5',
      '172.28.0.0/24',
      'fd00::/64',
      'loopback',
      '192.168.0.0/255.255.0.0',
    ]);
    expect(config.trustProxy('10.0.0.5', 0)).toBe(true);
    expect(config.trustProxy('10.0.0.6', 0)).toBe(false);
    expect(config.trustProxy('172.28.0.200', 0)).toBe(true);
    expect(config.trustProxy('172.28.1.1', 0)).toBe(false);
    expect(config.trustProxy('fd00::1:2', 0)).toBe(true);
    expect(config.trustProxy('fd01::1', 0)).toBe(false);
    expect(config.trustProxy('::1', 0)).toBe(true);
    expect(config.trustProxy('192.168.44.1', 0)).toBe(true);
    // A mapped IPv6 range narrower than all of IPv4 is accepted, and trusts only its part.
    const mapped = loadConfig({ TRUSTED_PROXIES: '::ffff:10.0.0.0/104' });
    expect(mapped.trustProxy('10.1.2.3', 0)).toBe(true);
    expect(mapped.trustProxy('11.1.2.3', 0)).toBe(false);
  });

  it.each([
    ['true', 'Express booleans are not addresses'],
    ['1', 'nor are hop counts'],
    ['balancer.internal', 'names are not resolved'],
    ['[::1]', 'IPv6 goes without brackets'],
    ['10.0.0', 'an incomplete address'],
    ['*', 'a wildcard'],
    ['0.0.0.0/0', 'every IPv4 address'],
    ['::/0', 'every IPv6 address'],
    ['::ffff:0:0/96', 'every IPv4 address, mapped into IPv6'],
    ['::/64', 'a range holding every IPv4-mapped address'],
    ['10.0.0.0/33', 'a prefix past 32'],
    ['fd00::/129', 'a prefix past 128'],
    ['10.0.0.0/eight', 'a prefix that is not a number'],
    ['10.0.0.0/255.0.255.0', 'a netmask that is not contiguous'],
    ['10.0.0.1,nonsense', 'one bad entry among good ones'],
  ])('refuses %s (%s), naming the variable and the entry', (value) => {
    const error = refusal(value);
    expect(error.variable).toBe('TRUSTED_PROXIES');
    expect(error.message.startsWith('TRUSTED_PROXIES:')).toBe(true);
    const bad = value.split(',').at(-1) ?? value;
    expect(error.message).toContain(bad);
  });
});

describe('the client address', () => {
  it('with nothing trusted, is the peer whatever X-Forwarded-For says', () => {
    expect(addressOf('', '127.0.0.1', '10.9.9.9')).toBe('127.0.0.1');
    expect(addressOf('', '203.0.113.7', '6.6.6.6, 10.1.1.1')).toBe('203.0.113.7');
  });

  it("behind a trusted peer, is the header's last address", () => {
    expect(addressOf('127.0.0.1', '127.0.0.1', '10.9.9.9')).toBe('10.9.9.9');
    // Node joins repeated X-Forwarded-For lines with ", ": the last one is the balancer's.
    expect(addressOf('127.0.0.1', '127.0.0.1', 'forged, 10.9.9.9')).toBe('10.9.9.9');
    // No header: the trusted peer itself (a health check, a peer replica).
    expect(addressOf('127.0.0.1', '127.0.0.1')).toBe('127.0.0.1');
  });

  it('from a peer that is not trusted, is that peer: its header is not read', () => {
    expect(addressOf('127.0.0.1', '127.0.0.2', '10.9.9.9')).toBe('127.0.0.2');
  });

  it('walks a chain from the right through trusted hops only', () => {
    // Only the balancer trusted: the hop it names is the client, whatever that hop claimed.
    expect(addressOf('127.0.0.1', '127.0.0.1', '6.6.6.6, 10.1.1.1')).toBe('10.1.1.1');
    // The next proxy trusted too: its own claim is believed.
    expect(addressOf('127.0.0.1,10.1.1.1', '127.0.0.1', '6.6.6.6, 10.1.1.1')).toBe('6.6.6.6');
    expect(addressOf('127.0.0.1,10.0.0.0/8', '127.0.0.1', '6.6.6.6, 10.1.1.1')).toBe('6.6.6.6');
  });

  it('matches IPv4-mapped and IPv6 peers as their addresses', () => {
    expect(addressOf('127.0.0.1', '::ffff:127.0.0.1', '10.9.9.9')).toBe('10.9.9.9');
    expect(addressOf('loopback', '::1', '2001:db8::7')).toBe('2001:db8::7');
    expect(addressOf('127.0.0.1', '::1', '10.9.9.9')).toBe('::1');
  });

  it('names a torn-down socket "unknown"', () => {
    expect(addressOf('127.0.0.1', undefined, '10.9.9.9')).toBe('unknown');
  });
});

describe('a TRUSTED_PROXIES that trusts whole ranges', () => {
  it('is told apart from a few balancers: more than WIDE_TRUST_HOST_BITS host bits, or a range name', () => {
    expect(WIDE_TRUST_HOST_BITS).toBe(8);
    const entries = loadConfig({
      TRUSTED_PROXIES: [
        '10.0.0.5',
        '172.28.0.0/24',
        '192.168.1.0/255.255.255.0',
        'fd00::/120',
        'loopback',
        '10.244.0.0/16',
        '10.1.2.0/23',
        '192.168.0.0/255.255.0.0',
        'fd00::/64',
        'fd00::/119',
        'uniquelocal',
        'linklocal',
      ].join(','),
    }).trustedProxies;
    expect(wideTrustedProxies(entries)).toEqual([
      '10.244.0.0/16',
      '10.1.2.0/23',
      '192.168.0.0/255.255.0.0',
      'fd00::/64',
      'fd00::/119',
      'uniquelocal',
      'linklocal',
    ]);
  });

  it('logs one warning at start naming the wide entries and the risk; a narrow list logs none', () => {
    const warnings = (trusted: string): Record<string, unknown>[] => {
      const lines: Record<string, unknown>[] = [];
      const logger = createLogger('warn', {
        write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
      });
      warnOfExposure(
        { host: '127.0.0.1', trustedProxies: loadConfig({ TRUSTED_PROXIES: trusted }).trustedProxies },
        logger,
      );
      return lines;
    };
    const wide = warnings('172.28.0.10,10.244.0.0/16,uniquelocal');
    expect(wide).toHaveLength(1);
    expect(wide[0]?.level).toBe(40);
    expect(String(wide[0]?.msg)).toMatch(
      /^TRUSTED_PROXIES trusts whole address ranges \(10\.244\.0\.0\/16, uniquelocal\): any host in them can forge X-Forwarded-For/,
    );
    expect(warnings('172.28.0.10,10.0.0.0/24,loopback')).toEqual([]);
    expect(warnings('')).toEqual([]);
  });
});
