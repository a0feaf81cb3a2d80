// Header redaction, body encoding and cutting, and the bounded request log of network.get / network.har.
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  isSecretHeader,
  redacted,
  redactHeaderList,
  redactHeaders,
} from '../../src/browser/network/headerRedaction.js';
import { bodyReport, isTextual, requestDetail } from '../../src/browser/network/requestDetail.js';
import { RequestLog } from '../../src/browser/network/requestLog.js';
import { SessionEvents } from '../../src/browser/events/sessionEvents.js';
import { SessionLog } from '../../src/browser/events/sessionLog.js';
import { SessionSignals } from '../../src/browser/session/sessionSignals.js';
import { UrlPolicy } from '../../src/browser/network/urlPolicy.js';
import { ServiceError } from '../../src/errors/serviceError.js';

describe('header redaction', () => {
  it('hides credentials by name and by name part, in any case, and keeps the rest', () => {
    for (const name of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'set-cookie',
      'X-Auth-Token',
      'x-api-key',
      'X-APIKEY',
      'x-client-secret',
      'x-session-id',
      'WWW-Authenticate',
    ])
      expect(isSecretHeader(name), name).toBe(true);
    for (const name of ['content-type', 'accept', 'x-fixture', 'location', 'cache-control', 'user-agent'])
      expect(isSecretHeader(name), name).toBe(false);
  });

  it('replaces a value by its length, unless revealed', () => {
    const headers = { authorization: 'Bearer abc', 'content-type': 'application/json', 'x-api-key': '' };
    expect(redactHeaders(headers, false)).toEqual({
      authorization: '[redacted: 10 chars]',
      'content-type': 'application/json',
      'x-api-key': '[redacted: 0 chars]',
    });
    expect(redactHeaders(headers, true)).toEqual(headers);
    expect(redacted('secret')).toBe('[redacted: 6 chars]');
    expect(
      redactHeaderList(
        [
          { name: 'Set-Cookie', value: 'a=1' },
          { name: 'Accept', value: '*/*' },
        ],
        false,
      ),
    ).toEqual([
      { name: 'Set-Cookie', value: '[redacted: 3 chars]' },
      { name: 'Accept', value: '*/*' },
    ]);
  });
});

describe('bodies', () => {
  it('answers textual MIME types as text and others as base64', () => {
    for (const mime of [
      'text/html; charset=utf-8',
      'application/json',
      'application/ld+json',
      'image/svg+xml',
    ])
      expect(isTextual(mime), mime).toBe(true);
    for (const mime of ['image/png', 'application/octet-stream', 'font/woff2', undefined])
      expect(isTextual(mime), String(mime)).toBe(false);
    expect(bodyReport(Buffer.from('{"a":1}'), 'application/json', 1024)).toEqual({
      size: 7,
      encoding: 'text',
      content: '{"a":1}',
    });
    expect(bodyReport(Buffer.from([0, 255, 1]), 'image/png', 1024)).toEqual({
      size: 3,
      encoding: 'base64',
      content: 'AP8B',
    });
    // Untyped: text when it is UTF-8.
    expect(bodyReport(Buffer.from('héllo'), undefined, 1024).encoding).toBe('text');
    expect(bodyReport(Buffer.from([0xff, 0xfe]), undefined, 1024).encoding).toBe('base64');
  });

  it('cuts at the cap, text at a character boundary, with the whole size', () => {
    expect(bodyReport(Buffer.from('abcdef'), 'text/plain', 4)).toEqual({
      size: 6,
      encoding: 'text',
      content: 'abcd',
      truncated: true,
    });
    // é is two bytes: cutting after its first byte keeps it out whole.
    expect(bodyReport(Buffer.from('aé'), 'text/plain', 2)).toMatchObject({
      content: 'a',
      truncated: true,
      size: 3,
    });
    expect(bodyReport(Buffer.from([1, 2, 3, 4]), 'image/png', 3)).toMatchObject({
      content: 'AQID',
      truncated: true,
    });
    expect(bodyReport(Buffer.from('abcd'), 'text/plain', 4).truncated).toBeUndefined();
  });
});

describe('RequestLog', () => {
  const fake = () => ({}) as Request;

  it('gives each request one id, in order, and keeps only the most recent', () => {
    const log = new RequestLog(2);
    const a = fake();
    const b = fake();
    expect(log.idOf(a)).toBe('r1');
    expect(log.seen(a, 'p1').id).toBe('r1');
    expect(log.idOf(b)).toBe('r2');
    expect(
      log.unseen({ url: 'http://x/', method: 'GET', resourceType: 'document', failure: 'blocked' }),
    ).toBe('r3');
    expect(log.list().map((r) => r.id)).toEqual(['r2', 'r3']);
    expect(log.issued).toBe(3);
    log.finished(b);
    expect(log.get('r2').finished).toBe(true);
    expect(() => log.get('r1')).toThrow(/no longer kept.*most recent 2 requests/);
    expect(() => log.get('r4')).toThrow(/no request r4 in this session/);
    expect(() => log.get('r01')).toThrow(ServiceError);
    expect(() => new RequestLog(0)).toThrow(RangeError);
  });
});

describe('SessionSignals and request ids', () => {
  it('gives a popup the allow-list refused (no Playwright Request) an id network.get can read', async () => {
    const events = new SessionEvents();
    const signals = new SessionSignals(
      new UrlPolicy(/^https?:\/\/127\.0\.0\.1(:\d+)?(\/|$)/),
      { console: 10, network: 10, requestDetails: 10 },
      () => {
        throw new Error('no main frame in this test');
      },
      events,
      new SessionLog(),
    );
    signals.popup('http://127.0.0.1:1/allowed');
    signals.popup('http://127.0.0.2:1/refused');
    const { items } = signals.network.drain();
    expect(items).toEqual([
      expect.objectContaining({ id: 'r1', url: 'http://127.0.0.2:1/refused', blocked: true, status: null }),
    ]);
    const detail = await requestDetail(signals.requests.get('r1'), {
      bodies: true,
      reveal: false,
      limits: { maxBytes: 1024, maxFetchBytes: 1024 },
    });
    expect(detail).toMatchObject({
      id: 'r1',
      url: 'http://127.0.0.2:1/refused',
      method: 'GET',
      resourceType: 'document',
      status: null,
      blocked: true,
      failure: 'blocked by the allow-list',
      headersComplete: false,
    });
  });
});
