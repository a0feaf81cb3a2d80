import type { BrowserSource } from '../browser/engine/browserSource.js';
import type { SessionRegistry } from '../browser/session/sessionRegistry.js';
import type { UrlPolicy } from '../browser/network/urlPolicy.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import { startCapacityAgent } from './capacityAgent.js';
import { balancerEndpoints, peerEndpoints } from './peerPorts.js';

/**
 * What a replica runs besides the service: HAProxy's capacity agent on REPLICA_AGENT_PORT, and the
 * allow-list's refusal of the peers' ports and of the balancer's addresses (peerPorts.ts), so no
 * page can spend a peer's rate limits or probe it, as it cannot its own replica's. A single service
 * behind a balancer refuses BALANCER_URLS too, and runs nothing else.
 */
export async function startReplicaParts(
  config: Config,
  parts: { sessions: SessionRegistry; browser: BrowserSource; policy: UrlPolicy },
  logger: Logger,
): Promise<{ close: () => Promise<void> }> {
  for (const endpoint of balancerEndpoints(config)) parts.policy.refuseEndpoint(endpoint);
  if (config.replicaId === undefined) return { close: async () => {} };
  for (const endpoint of peerEndpoints(config)) parts.policy.refuseEndpoint(endpoint);
  if (config.replicaAgentPort === 0) return { close: async () => {} };
  const agent = await startCapacityAgent(
    config.replicaAgentPort,
    config.host,
    () => ({ ready: parts.browser.ready, capacity: parts.sessions.capacity() }),
    logger,
  );
  parts.policy.refuseOwnPort(agent.port, config.host);
  return agent;
}
