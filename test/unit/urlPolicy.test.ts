import { describe, expect, it } from 'vitest';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { DEFAULT_ALLOW_HOST_REGEX } from '../../src/config/configKeys.js';

const policy = new UrlPolicy(new RegExp(DEFAULT_ALLOW_HOST_REGEX));

describe('UrlPolicy with the default ALLOW_HOST_REGEX', () => {
  it.each([
    'http://localhost/',
    'http://localhost:3000/projects?x=1#top',
    'https://localhost:65535/',
    'http://127.0.0.1/',
    'http://127.0.0.1:8080/a/b',
    'http://localhost',
  ])('allows %s', (url) => {
    expect(policy.checkNavigation(url).allowed).toBe(true);
    expect(policy.checkRequest(url).allowed).toBe(true);
  });

  it('answers the canonical URL, not the string it was given', () => {
    expect(policy.checkNavigation('HTTP://LOCALHOST:3000/X')).toEqual({
      allowed: true,
      url: 'http://localhost:3000/X',
    });
    expect(policy.checkNavigation('http://localhost')).toEqual({ allowed: true, url: 'http://localhost/' });
  });

  it.each([
    ['file:///etc/passwd', 'file:'],
    ['chrome://settings/', 'chrome:'],
    ['view-source:http://localhost/', 'view-source:'],
    ['javascript:alert(1)', 'javascript:'],
    ['ftp://localhost/', 'ftp:'],
    ['data:text/html,<b>hi</b>', 'data:'],
    ['blob:http://localhost/0b1c', 'blob:'],
  ])('refuses the scheme of %s for a navigation', (url, scheme) => {
    const verdict = policy.checkNavigation(url);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(scheme);
  });

  it.each([
    'http://localhost@evil.test/',
    'http://localhost.evil.test/',
    'http://127.0.0.1.evil.test/',
    'http://127.0.0.2/',
    'http://evil.test/?next=http://localhost/',
    'http://evil.test/http://localhost/',
    'http://evil.test#@localhost/',
    'http://localhost./',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'https://example.com/',
  ])('refuses %s (its canonical host is not on the list)', (url) => {
    expect(policy.checkNavigation(url).allowed).toBe(false);
    expect(policy.checkRequest(url).allowed).toBe(false);
  });

  it('judges http://localhost@evil.test/ by its real host', () => {
    const verdict = policy.checkNavigation('http://localhost@evil.test/');
    // The verdict (which is logged and returned) never carries the credentials.
    expect(verdict).toMatchObject({ allowed: false, url: 'http://evil.test/' });
    // The userinfo is refused before the host is even looked at; without it the host decides.
    expect(policy.checkNavigation('http://evil.test/')).toMatchObject({ allowed: false });
    if (!verdict.allowed) expect(verdict.reason).toMatch(/credentials/);
  });

  it('strips credentials from the verdict URL and refuses a CONNECT host that parses to another', () => {
    expect(policy.checkRequest('http://user:secret@localhost/x').url).toBe('http://localhost/x');
    expect(policy.checkOrigin('127.0.0.1#.evil.test', '443').allowed).toBe(false);
    expect(policy.checkOrigin('127.0.0.1', '443').allowed).toBe(true);
  });

  it.each(['http://user:pass@localhost/', 'http://user@localhost:3000/', 'http://:pw@127.0.0.1/'])(
    'refuses credentials in %s',
    (url) => {
      const verdict = policy.checkNavigation(url);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) expect(verdict.reason).toMatch(/credentials/);
    },
  );

  it.each([
    ['http://2130706433/', 'http://127.0.0.1/'],
    ['http://0x7f.1/', 'http://127.0.0.1/'],
    ['http://127.1/', 'http://127.0.0.1/'],
    ['http://0177.0.0.1:8080/', 'http://127.0.0.1:8080/'],
    ['http://%6c%6fcalhost/', 'http://localhost/'],
    ['http://localhost\\@evil.test/', 'http://localhost/@evil.test/'],
  ])('%s is what WHATWG resolves it to (%s): allowed', (url, canonical) => {
    expect(policy.checkNavigation(url)).toEqual({ allowed: true, url: canonical });
  });

  it('sees [::ffff:127.0.0.1] as [::ffff:7f00:1], which the default list does not name', () => {
    const verdict = policy.checkNavigation('http://[::ffff:127.0.0.1]/');
    expect(verdict.allowed).toBe(false);
    expect(verdict.url).toBe('http://[::ffff:7f00:1]/');
    if (!verdict.allowed) expect(verdict.reason).toContain('[::ffff:7f00:1]');
  });

  it('allows about:blank for navigations and requests, but no other about: page', () => {
    expect(policy.checkNavigation('about:blank')).toEqual({ allowed: true, url: 'about:blank' });
    expect(policy.checkRequest('about:blank').allowed).toBe(true);
    expect(policy.checkNavigation('about:srcdoc').allowed).toBe(false);
    expect(policy.checkNavigation('about:config').allowed).toBe(false);
  });

  it('allows data: and blob: only for subresource requests', () => {
    for (const url of ['data:text/plain,hello', 'blob:http://localhost:3000/5d2f7a3e']) {
      expect(policy.checkRequest(url).allowed).toBe(true);
      expect(policy.checkNavigation(url).allowed).toBe(false);
    }
  });

  it('never lets file:, chrome:, view-source: or javascript: through as a request either', () => {
    for (const url of [
      'file:///etc/hosts',
      'chrome://version',
      'view-source:http://localhost/',
      'javascript:1',
    ])
      expect(policy.checkRequest(url).allowed).toBe(false);
  });

  it('judges ws:// and wss:// by the matching http(s) origin', () => {
    expect(policy.checkRequest('ws://localhost:3000/socket').allowed).toBe(true);
    expect(policy.checkRequest('wss://127.0.0.1/socket').allowed).toBe(true);
    expect(policy.checkRequest('ws://evil.test/socket').allowed).toBe(false);
    expect(policy.checkRequest('ws://user:pw@localhost/').allowed).toBe(false);
  });

  it('refuses strings that are not absolute URLs or have an invalid port', () => {
    for (const url of ['/projects', '', 'http://localhost:99999/']) {
      const verdict = policy.checkNavigation(url);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) expect(verdict.reason).toBe('not an absolute URL');
    }
    // Without a scheme, "localhost:" is taken as the scheme: refused all the same.
    expect(policy.checkNavigation('localhost:3000').allowed).toBe(false);
  });

  it('checkOrigin allows a listed host:port and refuses any other', () => {
    expect(policy.checkOrigin('localhost', '3000').allowed).toBe(true);
    expect(policy.checkOrigin('127.0.0.1', '443').allowed).toBe(true);
    const refused = policy.checkOrigin('evil.test', '443');
    expect(refused).toEqual({
      allowed: false,
      url: 'evil.test:443',
      reason: 'evil.test:443 is outside the allow-list',
    });
    expect(policy.checkOrigin('127.0.0.2', '80').allowed).toBe(false);
    expect(policy.checkOrigin('localhost.evil.test', '80').allowed).toBe(false);
  });

  it('applies a custom regex to the canonical form', () => {
    const custom = new UrlPolicy(/^https:\/\/app\.internal\.test(\/|$)/);
    expect(custom.checkNavigation('https://APP.internal.test/x').allowed).toBe(true);
    expect(custom.checkNavigation('http://app.internal.test/').allowed).toBe(false);
    expect(custom.checkNavigation('http://localhost/').allowed).toBe(false);
  });
});
