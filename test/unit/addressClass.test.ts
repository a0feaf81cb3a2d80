import { describe, expect, it } from 'vitest';
import { addressClass, allowListHost, isLoopbackName } from '../../src/browser/network/addressClass.js';
import { ResolvedRefusals } from '../../src/browser/network/resolvedRefusals.js';

describe('addressClass', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
  ])('IPv4 %s is %s', (address, kind) => {
    expect(addressClass(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '192.169.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '11.0.0.1',
    '169.255.0.1',
    '128.0.0.1',
  ])('IPv4 %s is public', (address) => {
    expect(addressClass(address)).toBeUndefined();
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['FE80::ABCD', 'link-local'],
  ])('IPv6 %s is %s', (address, kind) => {
    expect(addressClass(address)).toBe(kind);
  });

  it.each(['2001:db8::1', '2606:4700:4700::1111', 'fb00::1', 'ff02::1', '::2', 'ff00::'])(
    'IPv6 %s is public',
    (address) => {
      expect(addressClass(address)).toBeUndefined();
    },
  );

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:c0a8:101', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:100.64.0.1', 'shared'],
  ])('IPv4-mapped IPv6 %s is %s, as the IPv4 address it carries', (address, kind) => {
    expect(addressClass(address)).toBe(kind);
  });

  it('an IPv4-mapped public address is public', () => {
    expect(addressClass('::ffff:8.8.8.8')).toBeUndefined();
  });

  it('throws for a name: no caller may take a name for a public address', () => {
    expect(() => addressClass('localhost')).toThrow(/not an IP address/);
    expect(() => addressClass('')).toThrow(/not an IP address/);
  });
});

describe('allowListHost', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['10.0.0.5', '10.0.0.5'],
    ['::1', '[::1]'],
    ['0:0:0:0:0:0:0:1', '[::1]'],
    ['FD00::A', '[fd00::a]'],
    ['fe80::1%eth0', '[fe80::1]'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:2', '127.0.0.2'],
    ['::ffff:c0a8:101', '192.168.1.1'],
  ])('%s is judged as %s', (address, host) => {
    expect(allowListHost(address)).toBe(host);
  });
});

describe('isLoopbackName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'a.b.localhost.'])(
    '%s is loopback',
    (name) => {
      expect(isLoopbackName(name)).toBe(true);
    },
  );
  it.each(['localhost.test', 'mylocalhost', 'localhost.evil.test', '127.0.0.1', 'app.test'])(
    '%s is not',
    (name) => {
      expect(isLoopbackName(name)).toBe(false);
    },
  );
});

describe('ResolvedRefusals', () => {
  it('answers the reason for the same origin, by default port and in any spelling, for a while', () => {
    let now = 1_000;
    const refusals = new ResolvedRefusals(() => now);
    refusals.note('App.Test', 443, 'app.test resolves to 127.0.0.1');
    refusals.note('app.test', 80, 'plain');
    expect(refusals.reasonFor('https://app.test/x')).toBe('app.test resolves to 127.0.0.1');
    expect(refusals.reasonFor('wss://APP.test.:443/')).toBe('app.test resolves to 127.0.0.1');
    expect(refusals.reasonFor('http://app.test/')).toBe('plain');
    expect(refusals.reasonFor('http://app.test:8080/')).toBeUndefined();
    expect(refusals.reasonFor('https://other.test/')).toBeUndefined();
    expect(refusals.reasonFor('not a url')).toBeUndefined();
    now += 60_000;
    expect(refusals.reasonFor('https://app.test/x')).toBeUndefined();
  });

  it('keeps a bounded number of origins, dropping the oldest', () => {
    const refusals = new ResolvedRefusals(() => 0);
    for (let i = 0; i < 1_000; i++) refusals.note(`n${i}.test`, 80, `r${i}`);
    expect(refusals.reasonFor('http://n0.test/')).toBeUndefined();
    expect(refusals.reasonFor('http://n999.test/')).toBe('r999');
  });

  it('an IPv6 origin matches with or without brackets', () => {
    const refusals = new ResolvedRefusals(() => 0);
    refusals.note('::1', 8080, 'six');
    expect(refusals.reasonFor('http://[::1]:8080/')).toBe('six');
  });
});
