// network.har: the session's kept requests (RequestLog) as a HAR 1.2 log, built when asked from
// what the browser still holds. Header secrets are hidden as in network.get unless revealed; the
// log is capped in characters of JSON and fails past the cap rather than answering part of it.
import type { Request } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';
import { redacted, redactHeaderList } from './headerRedaction.js';
import { headersOf, requestBody, responseBody, type BodyLimits, type BodyReport } from './requestDetail.js';
import { capUrl } from '../engine/pageGuards.js';
import type { RequestRecord } from './requestLog.js';

/** Requests whose details are read from the browser at once while a HAR is built. */
const HAR_BATCH = 20;
/**
 * With bodies, fewer at once: each body may be read whole (up to MAX_NETWORK_BODY_FETCH_BYTES)
 * before it is cut, and the MAX_HAR_CHARS check comes after each batch.
 */
const HAR_BODY_BATCH = 2;

type Pair = { name: string; value: string };
type HarCookie = { name: string; value: string } & Record<string, string | boolean>;

export interface HarOptions {
  bodies: boolean;
  reveal: boolean;
  creator: { name: string; version: string };
  /** MAX_HAR_CHARS: past this many characters of JSON the build stops with LIMIT_REACHED. */
  maxChars: number;
  /** MAX_NETWORK_BODY_BYTES and MAX_NETWORK_BODY_FETCH_BYTES, for the bodies. */
  bodyLimits: BodyLimits;
}

const pairs = (headers: Record<string, string>): Pair[] =>
  Object.entries(headers).flatMap(([name, value]) => value.split('\n').map((v) => ({ name, value: v })));

/** Cookies of a Cookie header ("a=1; b=2"). */
function requestCookies(header: string | undefined, reveal: boolean): HarCookie[] {
  if (header === undefined || header === '') return [];
  return header.split(/;\s*/).map((part) => {
    const eq = part.indexOf('=');
    const value = eq < 0 ? '' : part.slice(eq + 1);
    return { name: eq < 0 ? part : part.slice(0, eq), value: reveal ? value : redacted(value) };
  });
}

/** Cookies of Set-Cookie headers (one per line), with their attributes. */
function responseCookies(header: string | undefined, reveal: boolean): HarCookie[] {
  if (header === undefined || header === '') return [];
  return header.split('\n').map((line) => {
    const [first = '', ...attributes] = line.split(/;\s*/);
    const eq = first.indexOf('=');
    const value = eq < 0 ? '' : first.slice(eq + 1);
    const cookie: HarCookie = {
      name: eq < 0 ? first : first.slice(0, eq),
      value: reveal ? value : redacted(value),
    };
    for (const attribute of attributes) {
      const [key = '', val] = attribute.split('=');
      const name = key.trim().toLowerCase();
      if (name === 'path' || name === 'domain' || name === 'expires' || name === 'samesite')
        cookie[name === 'samesite' ? 'sameSite' : name] = val ?? '';
      else if (name === 'httponly') cookie.httpOnly = true;
      else if (name === 'secure') cookie.secure = true;
    }
    return cookie;
  });
}

function queryString(url: string): Pair[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    // Not a URL the WHATWG parser takes (a data: URL cut short): no query to list.
    return [];
  }
}

/** HAR timings from Playwright's (ms relative to startTime, -1 when not applicable). */
function timings(timing: ReturnType<Request['timing']>): Record<string, number> {
  const span = (from: number, to: number) => (from >= 0 && to >= from ? to - from : -1);
  const out = {
    blocked: -1,
    dns: span(timing.domainLookupStart, timing.domainLookupEnd),
    connect: span(timing.connectStart, timing.connectEnd),
    ssl: span(timing.secureConnectionStart, timing.connectEnd),
    send: 0,
    wait: Math.max(0, span(timing.requestStart, timing.responseStart)),
    receive: Math.max(0, span(timing.responseStart, timing.responseEnd)),
  };
  return out;
}

const elapsed = (t: Record<string, number>) =>
  Object.entries(t).reduce((sum, [key, v]) => (key !== 'ssl' && v > 0 ? sum + v : sum), 0);

function content(body: BodyReport | undefined, mimeType: string, size: number): Record<string, unknown> {
  if (body === undefined) return { size, mimeType };
  return {
    size: body.size ?? size,
    mimeType,
    ...(body.content !== undefined ? { text: body.content } : {}),
    ...(body.encoding === 'base64' ? { encoding: 'base64' } : {}),
    ...(body.truncated ? { comment: 'truncated at MAX_NETWORK_BODY_BYTES' } : {}),
    ...(body.unavailable !== undefined ? { comment: body.unavailable } : {}),
  };
}

/** One HAR entry of a kept record. */
export async function harEntry(record: RequestRecord, options: HarOptions): Promise<Record<string, unknown>> {
  const request = record.request;
  const startedDateTime = new Date(record.seenAt).toISOString();
  const pageref = record.pageId !== undefined ? { pageref: record.pageId } : {};
  if (request === null) {
    const facts = record.facts;
    return {
      startedDateTime,
      time: 0,
      request: {
        method: facts?.method ?? 'GET',
        url: facts?.url ?? '',
        httpVersion: '',
        cookies: [],
        headers: [],
        queryString: queryString(facts?.url ?? ''),
        headersSize: -1,
        bodySize: -1,
      },
      response: emptyResponse(facts?.failure ?? 'unknown'),
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      _id: record.id,
    };
  }
  const response = request.existingResponse();
  const [req, res] = await Promise.all([headersOf(request), response ? headersOf(response) : undefined]);
  // Sizes the browser no longer holds are left out (-1, as HAR says for unknown).
  const sizes = record.finished && response ? await request.sizes().catch(() => undefined) : undefined;
  const requestMime = req.headers['content-type'] ?? '';
  const post = options.bodies
    ? requestBody(request, req.headers['content-type'], options.bodyLimits)
    : undefined;
  const posted = request.postDataBuffer();
  const t = timings(request.timing());
  const startTime = request.timing().startTime;
  const entry: Record<string, unknown> = {
    ...pageref,
    startedDateTime: startTime > 0 ? new Date(startTime).toISOString() : startedDateTime,
    time: elapsed(t),
    request: {
      method: request.method(),
      url: capUrl(request.url()),
      httpVersion: 'HTTP/1.1',
      cookies: requestCookies(req.headers.cookie, options.reveal),
      headers: redactHeaderList(pairs(req.headers), options.reveal),
      queryString: queryString(capUrl(request.url())),
      ...(posted !== null
        ? {
            postData: {
              mimeType: requestMime,
              text: post?.content ?? '',
              ...(post === undefined ? { comment: 'body left out (bodies: false)' } : {}),
              ...(post?.encoding === 'base64' ? { _encoding: 'base64' } : {}),
            },
          }
        : {}),
      headersSize: sizes?.requestHeadersSize ?? -1,
      bodySize: sizes?.requestBodySize ?? posted?.length ?? 0,
    },
    response: emptyResponse(request.failure()?.errorText ?? 'no response'),
    cache: {},
    timings: t,
    _id: record.id,
  };
  if (response && res) {
    const mimeType = res.headers['content-type'] ?? '';
    const bodySize = sizes?.responseBodySize ?? -1;
    const body = options.bodies ? await responseBody(record, response, options.bodyLimits) : undefined;
    entry.response = {
      status: response.status(),
      statusText: response.statusText(),
      httpVersion: 'HTTP/1.1',
      cookies: responseCookies(res.headers['set-cookie'], options.reveal),
      headers: redactHeaderList(pairs(res.headers), options.reveal),
      content: content(body, mimeType, Math.max(0, bodySize)),
      redirectURL: res.headers.location ?? '',
      headersSize: sizes?.responseHeadersSize ?? -1,
      bodySize,
    };
  }
  return entry;
}

function emptyResponse(failure: string): Record<string, unknown> {
  return {
    status: 0,
    statusText: '',
    httpVersion: '',
    cookies: [],
    headers: [],
    content: { size: 0, mimeType: '' },
    redirectURL: '',
    headersSize: -1,
    bodySize: -1,
    _failure: failure,
  };
}

/** The HAR 1.2 log of the kept records, oldest first; LIMIT_REACHED past maxChars. */
export async function buildHar(
  records: RequestRecord[],
  options: HarOptions,
): Promise<{ log: Record<string, unknown> }> {
  const entries: Record<string, unknown>[] = [];
  const pages = new Map<
    string,
    { startedDateTime: string; id: string; title: string; pageTimings: object }
  >();
  let chars = 0;
  const size = options.bodies ? HAR_BODY_BATCH : HAR_BATCH;
  for (let i = 0; i < records.length; i += size) {
    const batch = records.slice(i, i + size);
    for (const entry of await Promise.all(batch.map((r) => harEntry(r, options)))) {
      chars += JSON.stringify(entry).length + 1;
      if (chars > options.maxChars)
        throw new ServiceError(
          'LIMIT_REACHED',
          `The session's HAR is over the ${options.maxChars} characters of JSON a call answers (MAX_HAR_CHARS): call network.har with bodies false, or read single requests with network.get.`,
          { limit: 'MAX_HAR_CHARS', max: options.maxChars },
        );
      entries.push(entry);
    }
    for (const record of batch)
      if (record.pageId !== undefined && !pages.has(record.pageId))
        pages.set(record.pageId, {
          startedDateTime: new Date(record.seenAt).toISOString(),
          id: record.pageId,
          title: capUrl(record.request?.url() ?? record.pageId),
          pageTimings: {},
        });
  }
  return { log: { version: '1.2', creator: options.creator, pages: [...pages.values()], entries } };
}
