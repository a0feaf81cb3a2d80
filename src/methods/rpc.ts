import { Type } from '@sinclair/typebox';
import { defineMethod } from './defineSessionMethod.js';

export const rpcDiscover = defineMethod({
  name: 'rpc.discover',
  summary: 'Return the OpenRPC document of this service (every method, its params, result and errors)',
  params: {},
  result: Type.Object(
    {
      openrpc: Type.String(),
      info: Type.Unknown(),
      methods: Type.Array(Type.Unknown()),
      components: Type.Unknown(),
    },
    { description: 'The OpenRPC 1.2.6 document, the same as openrpc.json.' },
  ),
  errors: [],
  readOnly: true,
  async handler(_params, { services }) {
    return services.openrpc();
  },
});
