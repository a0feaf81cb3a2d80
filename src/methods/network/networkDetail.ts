// Network detail: network.get answers one request of the session by its id (r1, r2 …,
// from network.pull or an action's failedRequests) with its headers, timing, sizes and bodies;
// network.har exports the kept requests as a HAR 1.2 log. Both read from the browser when called:
// recording a request costs its id and a reference. Header secrets are hidden unless reveal; URLs
// (query values included) are answered as they are: the caller's own session data, never a log line.
import { Type } from '@sinclair/typebox';
import { buildHar } from '../../browser/network/harLog.js';
import { requestDetail, type BodyLimits } from '../../browser/network/requestDetail.js';
import type { Config } from '../../config/config.js';
import { defineSessionMethod } from '../defineSessionMethod.js';

// The caps are configuration keys: the schema texts name them (their values are the operator's), the
// handlers read them from services.config.

function bodyLimits(config: Config): BodyLimits {
  return { maxBytes: config.maxNetworkBodyBytes, maxFetchBytes: config.maxNetworkBodyFetchBytes };
}

const revealParam = Type.Boolean({
  default: false,
  description:
    'Answer header values that carry credentials as they are: Authorization, Proxy-Authorization, Cookie, Set-Cookie and headers whose name contains token, secret, api-key, apikey, session or auth. Hidden by default ("[redacted: N chars]").',
});

const Headers = (description: string) =>
  Type.Record(Type.String(), Type.String(), {
    description: `${description} Names in lower case; repeated headers (Set-Cookie) are joined by newlines.`,
  });

const BodySchema = Type.Object({
  size: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The whole body in bytes; null when not known.',
  }),
  encoding: Type.Optional(
    Type.Union([Type.Literal('text'), Type.Literal('base64')], {
      description:
        'text for textual MIME types (text/*, JSON, XML, JavaScript, form data, SVG), else base64.',
    }),
  ),
  content: Type.Optional(Type.String({ description: 'The body, or its first MAX_NETWORK_BODY_BYTES.' })),
  truncated: Type.Optional(
    Type.Literal(true, {
      description: 'Cut at MAX_NETWORK_BODY_BYTES bytes (a configuration key); size is the whole.',
    }),
  ),
  unavailable: Type.Optional(
    Type.String({
      description: `Why there is no content: too large (over MAX_NETWORK_BODY_FETCH_BYTES: not fetched), still loading, no response, or no longer held by the browser (page closed, body evicted).`,
    }),
  ),
});

const TimingSchema = Type.Object(
  {
    startTime: Type.Number({ description: 'When the request started, in ms since the epoch.' }),
    domainLookupStart: Type.Number(),
    domainLookupEnd: Type.Number(),
    connectStart: Type.Number(),
    secureConnectionStart: Type.Number(),
    connectEnd: Type.Number(),
    requestStart: Type.Number(),
    responseStart: Type.Number(),
    responseEnd: Type.Number(),
  },
  {
    description:
      'Milliseconds after startTime; -1 when not applicable (a reused connection has no DNS or connect).',
  },
);

const SizesSchema = Type.Object(
  {
    requestBodySize: Type.Integer(),
    requestHeadersSize: Type.Integer(),
    responseBodySize: Type.Integer(),
    responseHeadersSize: Type.Integer(),
  },
  { description: 'Bytes on the wire (a compressed body counts compressed); once the request finished.' },
);

export const networkGet = defineSessionMethod({
  name: 'network.get',
  summary: 'Read one request of the session by its id: headers, status, timing, sizes and bodies',
  description: `Ids (r1, r2 …) come from network.pull and from the failedRequests of an action's answer. The details of the session's most recent MAX_NETWORK_DETAILS requests are kept; bodies are read from the browser now, each cut at MAX_NETWORK_BODY_BYTES bytes (both configuration keys). Header secrets are hidden unless reveal.`,
  params: {
    request_id: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'The request, as network.pull or an action report names it (r12).',
    }),
    bodies: Type.Boolean({
      default: true,
      description: 'Answer the request and response bodies (default true).',
    }),
    reveal: revealParam,
  },
  result: Type.Object({
    id: Type.String(),
    url: Type.String({ description: 'The URL as requested, query included.' }),
    method: Type.String(),
    resourceType: Type.String({ description: 'document, script, fetch, xhr, image …' }),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: 'HTTP status; null without a response.',
    }),
    statusText: Type.Optional(Type.String()),
    failure: Type.Optional(Type.String({ description: 'net::ERR_… or blocked by the allow-list.' })),
    blocked: Type.Optional(Type.Literal(true, { description: 'The allow-list refused it.' })),
    page_id: Type.Optional(Type.String({ description: 'The session page that made it.' })),
    startedAt: Type.String({ description: 'When the service saw the request (ISO 8601).' }),
    finished: Type.Boolean({ description: 'The response body has been received in full.' }),
    requestHeaders: Headers('The headers sent, cookies included.'),
    responseHeaders: Type.Optional(Headers('The headers received.')),
    headersComplete: Type.Boolean({
      description:
        'False when the browser no longer holds the raw headers (its page closed): those reported when the request was seen are answered, without cookies.',
    }),
    timing: Type.Optional(TimingSchema),
    sizes: Type.Optional(SizesSchema),
    requestBody: Type.Optional(BodySchema),
    responseBody: Type.Optional(BodySchema),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session, services }) {
    const limits = bodyLimits(services.config);
    return await requestDetail(session.requests.get(params.request_id), { ...params, limits });
  },
});

export const networkHar = defineSessionMethod({
  name: 'network.har',
  summary: "Export the session's kept requests as a HAR 1.2 log (headers, timings, optionally bodies)",
  description:
    "The most recent MAX_NETWORK_DETAILS requests, oldest first; each entry's _id is its request id. Header secrets and cookie values are hidden unless reveal. Fails with LIMIT_REACHED past MAX_HAR_CHARS characters of JSON (both configuration keys).",
  params: {
    bodies: Type.Boolean({
      default: false,
      description:
        'Include request and response bodies (each cut at MAX_NETWORK_BODY_BYTES bytes). Default false.',
    }),
    reveal: revealParam,
  },
  result: Type.Object({
    har: Type.Object(
      { log: Type.Record(Type.String(), Type.Unknown()) },
      { description: 'The HAR: { log: { version "1.2", creator, pages, entries } }.' },
    ),
    entries: Type.Integer({ description: 'Entries in the HAR.' }),
    omitted: Type.Optional(
      Type.Integer({ description: 'Earlier requests of the session no longer kept, so not in the HAR.' }),
    ),
  }),
  errors: ['LIMIT_REACHED'],
  readOnly: true,
  async handler(params, { session, services }) {
    const records = session.requests.list();
    const har = await buildHar(records, {
      ...params,
      creator: { name: 'playwright-jsonrpc', version: services.openrpc().info.version },
      maxChars: services.config.maxHarChars,
      bodyLimits: bodyLimits(services.config),
    });
    const omitted = session.requests.issued - records.length;
    return { har, entries: records.length, ...(omitted > 0 ? { omitted } : {}) };
  },
});

export const networkDetailMethods = [networkGet, networkHar];
