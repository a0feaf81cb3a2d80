// Examples of network.pull, network.get, network.har, network.route, network.unroute,
// network.routes, network.offline, network.throttle and network.setExtraHeaders for openrpc.json, from the exchanges docs/behaviour.md shows.
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_ORIGIN as O, EXAMPLE_SESSION as S, EXAMPLE_TIME as TIME } from './exampleValues.js';

/** The failed request network.pull answers both with onlyErrors and after a cursor. */
const failedRequest = {
  seq: 41,
  id: 'r7',
  url: `${O}/api/fail`,
  status: 500,
  method: 'GET',
  resourceType: 'fetch',
  timestamp: TIME,
};

const itemsRoute = {
  route_id: 'rt1',
  pattern: '**/routes/api/items',
  action: 'fulfill',
  status: 200,
  headers: ['content-type'],
  times: null,
  served: 1,
};

export const networkExamples: Record<string, MethodExample[]> = {
  'network.pull': [
    {
      name: 'only the failed responses',
      params: { session_id: S, onlyErrors: true },
      result: {
        requests: [failedRequest],
        dropped: 0,
      },
    },
    {
      name: 'every response after a cursor, without draining',
      params: { session_id: S, onlyErrors: false, since: 38 },
      result: {
        requests: [
          {
            seq: 39,
            id: 'r6',
            url: `${O}/api/items`,
            status: 200,
            method: 'GET',
            resourceType: 'fetch',
            timestamp: TIME,
          },
          failedRequest,
        ],
        dropped: 0,
        cursor: 42,
      },
    },
  ],
  'network.get': [
    {
      name: 'a JSON POST and its answer (docs/behaviour.md), Authorization hidden',
      params: { session_id: S, request_id: 'r2' },
      result: {
        id: 'r2',
        url: `${O}/network/api?q=1`,
        method: 'POST',
        resourceType: 'fetch',
        status: 200,
        statusText: 'OK',
        page_id: 'p1',
        startedAt: TIME,
        finished: true,
        requestHeaders: {
          authorization: '[redacted: 19 chars]',
          'content-type': 'application/json',
          accept: '*/*',
        },
        responseHeaders: {
          'content-type': 'application/json',
          'x-fixture': 'network',
          'set-cookie': '[redacted: 31 chars]',
        },
        headersComplete: true,
        requestBody: { size: 24, encoding: 'text', content: '{"item":"one","count":2}' },
        responseBody: {
          size: 42,
          encoding: 'text',
          content: '{"ok":true,"got":{"item":"one","count":2}}',
        },
      },
    },
  ],
  'network.har': [
    {
      name: "the session's requests as a HAR (entries shortened)",
      params: { session_id: S },
      result: {
        har: {
          log: {
            version: '1.2',
            creator: { name: 'playwright-jsonrpc', version: '0.1.0' },
            pages: [{ startedDateTime: TIME, id: 'p1', title: `${O}/network/page`, pageTimings: {} }],
            entries: [],
          },
        },
        entries: 3,
      },
    },
  ],
  screenshot: [
    {
      name: 'one element (docs/behaviour.md; the base64 shortened)',
      params: { session_id: S, selector: '#chart' },
      result: {
        base64: 'iVBORw0KGgoAAAAN…',
        mime: 'image/png',
        bytes: 4647,
        width: 300,
        height: 150,
        scale: 1,
      },
    },
  ],
  'network.route': [
    {
      name: 'a mocked JSON API (docs/behaviour.md)',
      params: {
        session_id: S,
        pattern: '**/routes/api/items',
        action: 'fulfill',
        contentType: 'application/json',
        body: '["Mocked item"]',
      },
      result: { route_id: 'rt1' },
    },
    {
      name: 'a failing request',
      params: { session_id: S, pattern: '**/*.png', action: 'abort', errorCode: 'connectionrefused' },
      result: { route_id: 'rt2' },
    },
    {
      name: 'a header added to matching requests, twice only',
      params: {
        session_id: S,
        pattern: '**/api/**',
        action: 'continue',
        headers: { 'x-test-run': '42' },
        times: 2,
      },
      result: { route_id: 'rt3' },
    },
  ],
  'network.routes': [
    {
      name: "the session's routes (docs/behaviour.md)",
      params: { session_id: S },
      result: { routes: [itemsRoute] },
    },
  ],
  'network.unroute': [
    {
      name: 'every route of the session (docs/behaviour.md)',
      params: { session_id: S, all: true },
      result: { removed: 1, routes: [] },
    },
  ],
  'network.offline': [
    {
      name: 'off the network (docs/behaviour.md)',
      params: { session_id: S, offline: true },
      result: { offline: true },
    },
  ],
  'network.throttle': [
    {
      name: 'a slow 3G connection (docs/behaviour.md)',
      params: { session_id: S, preset: 'slow-3g' },
      result: { throttle: { latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 } },
    },
    {
      name: 'figures of your own',
      params: { session_id: S, custom: { latencyMs: 300, downloadKbps: 1000, uploadKbps: 500 } },
      result: { throttle: { latencyMs: 300, downloadKbps: 1000, uploadKbps: 500 } },
    },
  ],
  'network.setExtraHeaders': [
    {
      name: 'a token sent with every request (docs/behaviour.md)',
      params: { session_id: S, headers: { Authorization: 'Bearer test-token' } },
      result: { headers: ['authorization'] },
    },
  ],
};
