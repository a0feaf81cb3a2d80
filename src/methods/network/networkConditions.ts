// The session's network conditions: network.offline, network.throttle (Chrome DevTools'
// presets or custom figures) and network.setExtraHeaders. Header values are the caller's secrets:
// session methods log only the session id, and refusals name a header, never its value.
import { Type } from '@sinclair/typebox';
import { checkHeaders, MAX_HEADERS } from '../../browser/network/httpHeaders.js';
import {
  setOffline,
  setThrottle,
  THROTTLE_PRESETS,
  type Throttle,
} from '../../browser/network/networkConditions.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { ownContext } from '../session/storage.js';
import { requireExactlyOne } from './exactlyOne.js';

/** Bounds of custom throttling: a latency of a minute, throughput from 1 kbit/s to 10 Gbit/s. */
export const MAX_THROTTLE_LATENCY_MS = 60_000;
export const MAX_THROTTLE_KBPS = 10_000_000;

export const networkOffline = defineSessionMethod({
  name: 'network.offline',
  summary: 'Take the session off the network (every request fails as without a connection), or back on',
  description: 'Every page of the session, popups included; navigator.onLine follows. Throttling is kept.',
  params: { offline: Type.Boolean({ description: 'true: offline; false: back online.' }) },
  result: Type.Object({ offline: Type.Boolean() }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    await setOffline(ownContext(session, 'network.offline'), params.offline);
    return { offline: params.offline };
  },
});

const Kbps = (what: string) =>
  Type.Number({ minimum: 1, maximum: MAX_THROTTLE_KBPS, description: `${what} throughput in kbit/s.` });

export const networkThrottle = defineSessionMethod({
  name: 'network.throttle',
  summary: "Slow the session's network down: a Chrome DevTools preset, or latency and throughput of your own",
  description:
    "Presets (DevTools' figures): slow-3g 2000 ms, 400/400 kbit/s; fast-3g 562.5 ms, 1440/675 kbit/s; 4g 165 ms, 8100/1350 kbit/s (down/up); none lifts it. Applied to every page of the session and to the pages it opens later. Give preset or custom, not both.",
  params: {
    preset: Type.Optional(
      Type.Union(
        [Type.Literal('none'), Type.Literal('slow-3g'), Type.Literal('fast-3g'), Type.Literal('4g')],
        { description: 'A named preset; none lifts the throttling.' },
      ),
    ),
    custom: Type.Optional(
      Type.Object(
        {
          latencyMs: Type.Number({
            minimum: 0,
            maximum: MAX_THROTTLE_LATENCY_MS,
            description: 'Added to every request, in ms.',
          }),
          downloadKbps: Kbps('Download'),
          uploadKbps: Kbps('Upload'),
        },
        { additionalProperties: false, description: 'Figures of your own instead of a preset.' },
      ),
    ),
  },
  result: Type.Object({
    throttle: Type.Union(
      [
        Type.Object({ latencyMs: Type.Number(), downloadKbps: Type.Number(), uploadKbps: Type.Number() }),
        Type.Null(),
      ],
      { description: 'The figures now applied; null when none.' },
    ),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    requireExactlyOne('network.throttle', params, 'preset', 'custom', 'preset or custom');
    const throttle: Throttle | undefined =
      params.custom ??
      (params.preset === 'none' || params.preset === undefined ? undefined : THROTTLE_PRESETS[params.preset]);
    await setThrottle(ownContext(session, 'network.throttle'), throttle);
    return { throttle: throttle === undefined ? null : { ...throttle } };
  },
});

export const networkSetExtraHeaders = defineSessionMethod({
  name: 'network.setExtraHeaders',
  summary:
    'Send these HTTP headers with every request of the session (replacing the previous set; {} clears it)',
  description: `Every request to every origin, popups included (an Authorization header reaches every allowed host the pages load from). At most ${MAX_HEADERS} headers; not Host, Content-Length, Connection, Proxy-* and the like. Values never reach a log line.`,
  params: {
    headers: Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
      maxProperties: MAX_HEADERS,
      description: 'Header name → value.',
    }),
  },
  result: Type.Object({
    headers: Type.Array(Type.String(), { description: 'The names now sent (lower case).' }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    const context = ownContext(session, 'network.setExtraHeaders');
    const headers = checkHeaders(params.headers, 'network.setExtraHeaders', '/headers', true);
    await context.setExtraHTTPHeaders(headers);
    return { headers: Object.keys(headers) };
  },
});

export const networkConditionMethods = [networkOffline, networkThrottle, networkSetExtraHeaders];
