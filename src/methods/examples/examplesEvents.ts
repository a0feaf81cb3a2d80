// Examples of session.subscribe and session.unsubscribe for openrpc.json (docs/behaviour.md, "Event streams").
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_SESSION as S } from './exampleValues.js';

const SUB = 'sub_3f0c6c1e-2a8e-4c4e-9a55-7d1f0b6f2f7a';

export const eventExamples: Record<string, MethodExample[]> = {
  'session.subscribe': [
    {
      name: 'console messages and failed requests from the next one on (WebSocket /rpc)',
      params: { session_id: S, kinds: ['console', 'pageerror', 'requestfailed'] },
      result: { subscription_id: SUB, session_id: S, cursor: 57 },
    },
  ],
  'session.unsubscribe': [
    {
      name: 'stop it',
      params: { subscription_id: SUB },
      result: { stopped: true },
    },
  ],
};
