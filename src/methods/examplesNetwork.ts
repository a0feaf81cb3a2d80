// Examples of network.route, network.unroute, network.routes, network.offline, network.throttle and
// network.setExtraHeaders for openrpc.json, from the exchanges docs/behaviour.md shows.
import type { MethodExample } from '../rpc/openrpc.js';
import { EXAMPLE_SESSION as S } from './exampleValues.js';

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
