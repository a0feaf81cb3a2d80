import type { MethodDefinition } from '../rpc/defineMethod.js';
import { a11yMethods } from './a11y.js';
import { agentMethods } from './agents.js';
import { rpcDiscover } from './discover.js';
import { pageMethods } from './page.js';
import { sessionMethods } from './session.js';
import { signalMethods } from './signals.js';
import { tabMethods } from './tabs.js';

/** Every method of the service, in the order the docs list them. */
export const allMethods: MethodDefinition[] = [
  ...sessionMethods,
  ...pageMethods,
  ...signalMethods,
  ...a11yMethods,
  ...agentMethods,
  ...tabMethods,
  rpcDiscover,
];
