import type { RefusedEndpoint } from '../browser/network/urlPolicy.js';
import { PEER_ID_PLACEHOLDER, REPLICA_ID_PATTERN, type ReplicaConfig } from '../config/configReplicas.js';

/** What a page is told a peer's port is. */
const PEER_PORT = 'a port of another replica (REPLICA_PEERS)';
/** What a page is told the balancer's address is. */
const BALANCER_PORT = "the load balancer's address (BALANCER_URLS)";

/** Stands for `{id}` while a template is parsed as a URL (`{` is not a host character). */
const ID_MARKER = 'pwjpeeridmarker0';

const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/**
 * The peers' ports no page may reach, as the replica's own are not: each peer's HTTP port, and the
 * ports every replica of a deployment shares (REPLICA_AGENT_PORT, a fixed EGRESS_PROXY_PORT), on each
 * address REPLICA_PEERS lists, or on every name its template makes (any replica id in `{id}`; with
 * `{id}.` first, the name without it too: a StatefulSet's headless Service, every replica at once).
 * A template's peers are refused by name only: their addresses are not known in advance.
 */
export function peerEndpoints(
  config: Pick<ReplicaConfig, 'replicaPeers' | 'replicaAgentPort'> & { egressProxyPort: number },
): RefusedEndpoint[] {
  const shared = [config.replicaAgentPort, config.egressProxyPort].filter((p) => p !== 0);
  const endpoints: RefusedEndpoint[] = [];
  for (const origin of config.replicaPeers.listed.values()) {
    const url = new URL(origin);
    endpoints.push({ host: url.hostname, ports: new Set([portOf(url), ...shared]), what: PEER_PORT });
  }
  const template = config.replicaPeers.template;
  if (template !== undefined) {
    const url = new URL(template.replaceAll(PEER_ID_PLACEHOLDER, ID_MARKER));
    const idPattern = REPLICA_ID_PATTERN.source.replace(/^\^|\$$/g, '');
    const escape = (part: string): string => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    let host = url.hostname.split(ID_MARKER).map(escape).join(idPattern);
    // `{id}.svc…`: the rest is the headless Service's name, which resolves to every replica.
    if (url.hostname.startsWith(`${ID_MARKER}.`))
      host = `(${idPattern}\\.)?${escape(url.hostname.slice(ID_MARKER.length + 1))}`;
    endpoints.push({
      host: new RegExp(`^${host}$`),
      ports: new Set([portOf(url), ...shared]),
      what: PEER_PORT,
    });
  }
  return endpoints;
}

/**
 * The balancer's addresses (BALANCER_URLS), refused to pages like the peers' ports: through the
 * balancer a page would reach every replica's API. Each origin's host on its port; a loopback host
 * stands for this machine under any spelling (UrlPolicy.refusedEndpoint).
 */
export function balancerEndpoints(config: Pick<ReplicaConfig, 'balancerUrls'>): RefusedEndpoint[] {
  return config.balancerUrls.map((origin) => {
    const url = new URL(origin);
    return { host: url.hostname, ports: new Set([portOf(url)]), what: BALANCER_PORT };
  });
}
