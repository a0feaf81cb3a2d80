import { Type } from '@sinclair/typebox';
import { NetworkEntrySchema } from '../browser/signalEntries.js';
import { defineSessionMethod } from './defineSessionMethod.js';

export const networkPull = defineSessionMethod({
  name: 'network.pull',
  summary: 'Drain the network responses and failed requests buffered since the last pull',
  params: {
    onlyErrors: Type.Boolean({
      default: true,
      description:
        'Return only status >= 400, failed and blocked requests (default true). The buffer is drained either way.',
    }),
  },
  result: Type.Object({
    requests: Type.Array(NetworkEntrySchema),
    dropped: Type.Integer({
      description: 'Entries dropped because the ring buffer (NETWORK_BUFFER_SIZE) was full.',
    }),
  }),
  errors: [],
  readOnly: false,
  async handler(params, { session }) {
    const { items, dropped } = session.network.drain();
    const requests = params.onlyErrors
      ? items.filter((r) => r.status === null || r.status >= 400 || r.blocked === true)
      : items;
    return { requests, dropped };
  },
});

export const networkMethods = [networkPull];
