// What network.get answers of one kept request, read from the browser when asked: headers (all of
// them, cookies included, secrets hidden unless revealed), timing, sizes and bodies, each body cut
// at a cap. A part the browser no longer holds (a closed page, an evicted body) is said so in its
// place: it does not fail the call.
import type { Request, Response } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { BLOCKED_HEADER } from './egressProxy.js';
import { redactHeaders } from './headerRedaction.js';
import { capUrl } from '../engine/pageGuards.js';
import type { RequestRecord } from './requestLog.js';

/** The caps on the bodies network.get and network.har answer (config keys, configCaps.ts). */
export interface BodyLimits {
  /** MAX_NETWORK_BODY_BYTES: a body answered is cut at this many bytes (truncated, with its full size). */
  maxBytes: number;
  /** MAX_NETWORK_BODY_FETCH_BYTES: a response body whose known size is over this is not fetched at all. */
  maxFetchBytes: number;
}
/** Reading one response body from the browser (or its raw headers) must not take longer. */
export const NETWORK_READ_TIMEOUT_MS = 10_000;

export interface BodyReport {
  /** The whole body's size in bytes; null when not known. */
  size: number | null;
  encoding?: 'text' | 'base64';
  content?: string;
  truncated?: true;
  /** Why there is no content. */
  unavailable?: string;
}

export interface RequestDetail {
  id: string;
  url: string;
  method: string;
  resourceType: string;
  status: number | null;
  statusText?: string;
  failure?: string;
  blocked?: true;
  page_id?: string;
  startedAt: string;
  finished: boolean;
  requestHeaders: Record<string, string>;
  responseHeaders?: Record<string, string>;
  headersComplete: boolean;
  timing?: ReturnType<Request['timing']>;
  sizes?: Awaited<ReturnType<Request['sizes']>>;
  requestBody?: BodyReport;
  responseBody?: BodyReport;
}

const TEXTUAL =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql)\b|image\/svg\+xml)/i;

/** Whether a MIME type's bodies are answered as text (else base64). */
export function isTextual(mimeType: string | undefined): boolean {
  return mimeType !== undefined && TEXTUAL.test(mimeType.trim());
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
function isUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    // Not UTF-8: the body is answered as base64.
    return false;
  }
}

/** A body as answered: text for a textual MIME type (or an untyped body that is UTF-8), else base64; cut at the cap. */
export function bodyReport(bytes: Buffer, mimeType: string | undefined, max: number): BodyReport {
  let end = Math.min(bytes.length, max);
  const text = isTextual(mimeType) || (mimeType === undefined && isUtf8(bytes));
  // Text is cut at a character boundary: never half of a UTF-8 sequence.
  if (text && end < bytes.length) while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const kept = bytes.subarray(0, end);
  return {
    size: bytes.length,
    encoding: text ? 'text' : 'base64',
    content: text ? kept.toString('utf8') : kept.toString('base64'),
    ...(end < bytes.length ? { truncated: true as const } : {}),
  };
}

/** The first line of an error's message: why the browser could not answer. */
export function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown';
}

/** Headers from the browser (raw, cookies included), or the ones reported at the event when it no longer holds them. */
export async function headersOf(
  source: Request | Response,
): Promise<{ headers: Record<string, string>; complete: boolean }> {
  try {
    return {
      headers: await withDeadline(source.allHeaders(), NETWORK_READ_TIMEOUT_MS, () => new Error('timed out')),
      complete: true,
    };
  } catch {
    // The page or the browser's record is gone: the headers Playwright reported with the event remain.
    return { headers: source.headers(), complete: false };
  }
}

/** The response body, read from the browser now; what stops it (size, redirect, gone) is said in place. */
export async function responseBody(
  record: RequestRecord,
  response: Response,
  limits: BodyLimits,
): Promise<BodyReport> {
  const mime = response.headers()['content-type'];
  const length = Number(response.headers()['content-length'] ?? Number.NaN);
  let size: number | null = Number.isFinite(length) ? length : null;
  if (!record.finished)
    return { size, unavailable: 'the response has not finished loading (or the request was cancelled)' };
  if (size === null)
    try {
      size = (await response.request().sizes()).responseBodySize;
    } catch {
      // Sizes unknown: the fetch below still runs, and the body's length is its size.
      size = null;
    }
  if (size !== null && size > limits.maxFetchBytes)
    return {
      size,
      unavailable: `too large: ${size} bytes, over the ${limits.maxFetchBytes} (MAX_NETWORK_BODY_FETCH_BYTES) the service fetches from the browser`,
    };
  try {
    const bytes = await withDeadline(response.body(), NETWORK_READ_TIMEOUT_MS, () => new Error('timed out'));
    return bodyReport(bytes, mime, limits.maxBytes);
  } catch (error) {
    return { size, unavailable: `the browser no longer holds it: ${reason(error)}` };
  }
}

/** The request body (post data), which Playwright holds with the request. */
export function requestBody(
  request: Request,
  mimeType: string | undefined,
  limits: BodyLimits,
): BodyReport | undefined {
  const bytes = request.postDataBuffer();
  return bytes === null ? undefined : bodyReport(bytes, mimeType, limits.maxBytes);
}

/** Everything network.get answers of one record. */
export async function requestDetail(
  record: RequestRecord,
  options: { bodies: boolean; reveal: boolean; limits: BodyLimits },
): Promise<RequestDetail> {
  const base = { id: record.id, startedAt: new Date(record.seenAt).toISOString(), finished: record.finished };
  const request = record.request;
  if (request === null) {
    const facts = record.facts ?? { url: '', method: 'GET', resourceType: 'other', failure: 'unknown' };
    return { ...base, ...facts, status: null, blocked: true, requestHeaders: {}, headersComplete: false };
  }
  const response = request.existingResponse();
  const [req, res] = await Promise.all([headersOf(request), response ? headersOf(response) : undefined]);
  const blocked = response?.headers()[BLOCKED_HEADER] === '1';
  const failure = blocked ? 'blocked by the allow-list' : request.failure()?.errorText;
  let sizes: RequestDetail['sizes'];
  if (record.finished && response)
    try {
      sizes = await request.sizes();
    } catch {
      // The browser no longer holds them: sizes are left out.
      sizes = undefined;
    }
  const detail: RequestDetail = {
    ...base,
    url: capUrl(request.url()),
    method: request.method(),
    resourceType: request.resourceType(),
    status: response ? response.status() : null,
    ...(response ? { statusText: response.statusText() } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...(blocked ? { blocked: true as const } : {}),
    ...(record.pageId !== undefined ? { page_id: record.pageId } : {}),
    requestHeaders: redactHeaders(req.headers, options.reveal),
    ...(res ? { responseHeaders: redactHeaders(res.headers, options.reveal) } : {}),
    headersComplete: req.complete && (res?.complete ?? true),
    timing: request.timing(),
    ...(sizes ? { sizes } : {}),
  };
  if (!options.bodies) return detail;
  const sent = requestBody(request, req.headers['content-type'], options.limits);
  if (sent) detail.requestBody = sent;
  detail.responseBody = response
    ? await responseBody(record, response, options.limits)
    : { size: null, unavailable: `no response: ${failure ?? 'the request has not been answered yet'}` };
  return detail;
}
