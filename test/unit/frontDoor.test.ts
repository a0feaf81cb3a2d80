// The pure parts of what a new user meets first: which Accept is a browser's, which key is a
// placeholder, the RateLimit fields, the route templates refusals are counted by, the start line.
import { describe, expect, it } from 'vitest';
import { frontDoorUrls, startLine } from '../../src/cli/serve.js';
import { isKeyPlaceholder, UNSET_KEY_PLACEHOLDER } from '../../src/http/auth.js';
import { EdgeLimits, WindowCounter } from '../../src/http/rateLimits.js';
import { rateLimitFields } from '../../src/http/rateLimitHeaders.js';
import { isRefusalReason } from '../../src/http/refusalLog.js';
import { routeTemplate, UNKNOWN_ROUTE } from '../../src/http/serviceRoutes.js';
import { acceptsHtml } from '../../src/http/uiRoute.js';

describe('acceptsHtml', () => {
  it("is true for a browser's navigation, false for an API client's Accept", () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect(acceptsHtml(browser)).toBe(true);
    expect(acceptsHtml('TEXT/HTML; charset=utf-8')).toBe(true);
    for (const api of [undefined, '', '*/*', 'application/json', 'text/*', 'text/html;q=0', 'text/htmlx'])
      expect(acceptsHtml(api), String(api)).toBe(false);
  });
});

describe('isKeyPlaceholder', () => {
  it("recognises .mcp.json's default and unexpanded variables, never a real key", () => {
    for (const placeholder of [
      UNSET_KEY_PLACEHOLDER,
      '${API_KEY}',
      ' ${API_KEY} ',
      '${API_KEY:-}',
      '${API_KEY:-whatever}',
      '$API_KEY',
      '${PLAYWRIGHT_KEY}',
    ])
      expect(isKeyPlaceholder(placeholder), placeholder).toBe(true);
    for (const key of ['dev-key-123', 'k$ey', '${API_KEY', 'x${API_KEY}', '$', 'api-key-$x-1'])
      expect(isKeyPlaceholder(key), key).toBe(false);
  });

  it('a placeholder is refused as such: a key problem of its own, not a wrong guess', () => {
    const limits = new EdgeLimits(['real-key-0123456789'], 10, 60_000);
    expect(limits.admit('127.0.0.1', '${API_KEY}')).toMatchObject({ status: 401, reason: 'placeholder' });
    expect(limits.admit('127.0.0.1', 'wrong')).toMatchObject({ status: 401, reason: 'invalid' });
    expect(limits.admit('127.0.0.1', undefined)).toMatchObject({ status: 401, reason: 'missing' });
    expect(limits.admit('127.0.0.1', 'real-key-0123456789')).toHaveProperty('keyId');
  });
});

describe('RateLimit fields', () => {
  it('count down with each use and reset with the window', () => {
    const counter = new WindowCounter(3, 60_000);
    const seen = [0, 1, 2, 3].map(() => {
      counter.take('a');
      return rateLimitFields(counter.budget('a'));
    });
    expect(seen.map((f) => f['RateLimit-Remaining'])).toEqual(['2', '1', '0', '0']);
    for (const fields of seen) {
      expect(fields['RateLimit-Limit']).toBe('3');
      expect(fields['RateLimit-Policy']).toBe('3;w=60');
      expect(Number(fields['RateLimit-Reset'])).toBeGreaterThan(0);
      expect(Number(fields['RateLimit-Reset'])).toBeLessThanOrEqual(60);
    }
  });

  it('round the reset up to whole seconds, as Retry-After does', () => {
    expect(rateLimitFields({ limit: 5, remaining: 0, resetMs: 1_001, windowMs: 1_500 })).toEqual({
      'RateLimit-Policy': '5;w=2',
      'RateLimit-Limit': '5',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '2',
    });
  });
});

describe('routeTemplate', () => {
  it('names the route of a path, its ids replaced, and nothing of an unknown path', () => {
    expect(routeTemplate('/')).toBe('/');
    expect(routeTemplate('/rpc')).toBe('/rpc');
    expect(routeTemplate('/RPC/')).toBe('/rpc');
    expect(routeTemplate('/mcp')).toBe('/mcp');
    expect(routeTemplate('/sessions/s_abc123/events')).toBe('/sessions/{id}/events');
    expect(routeTemplate('/sessions/s_abc123')).toBe('/sessions/{id}');
    expect(routeTemplate('/clients/c1/tabs')).toBe('/clients/{clientId}/tabs');
    expect(routeTemplate('/ui/app.js')).toBe('/ui');
    expect(routeTemplate('/metrics')).toBe('/metrics');
    for (const unknown of ['/nope', '/rpc/extra', '/sessions/a/b/c', '/secret-token-in-path'])
      expect(routeTemplate(unknown)).toBe(UNKNOWN_ROUTE);
  });

  it('the refusal reasons are a fixed set', () => {
    expect(isRefusalReason('missing')).toBe(true);
    expect(isRefusalReason('host')).toBe(true);
    expect(isRefusalReason('toString')).toBe(false);
    expect(isRefusalReason(401)).toBe(false);
  });
});

describe('the start line', () => {
  it('names the console, /mcp and /rpc', () => {
    const base = 'http://127.0.0.1:3337';
    expect(frontDoorUrls(base)).toEqual({
      console: `${base}/ui/`,
      mcp: `${base}/mcp`,
      rpc: `${base}/rpc`,
    });
    const line = startLine(base);
    for (const url of [`${base}/ui/`, `${base}/mcp`, `${base}/rpc`]) expect(line).toContain(url);
  });
});
