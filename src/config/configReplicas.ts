// Replicas behind a load balancer: which replica this process is, where its peers are,
// which one hosts the agent hub, and the port of the load balancer's capacity agent. Kept apart
// from configKeys.ts and config.ts (both near the file-size limit); the table is spread into
// CONFIG_KEYS and the values into Config, as configUi.ts does. docs/deployment.md explains them.

/** A replica's name: it goes into session ids, HAProxy server names and peer address templates. */
export const REPLICA_ID_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** What a peer address template names the replica id with (a StatefulSet's pod DNS name). */
export const PEER_ID_PLACEHOLDER = '{id}';

export const REPLICA_KEYS = {
  REPLICA_ID: {
    default: '',
    group: 'replicas',
    description:
      "This replica's name behind a load balancer (lower-case letters, digits and '-', at most 63, e.g. r1 or a StatefulSet pod name pwj-0). Every session it creates is named s_<REPLICA_ID>.<uuid>, so the balancer routes a session's calls by its id, and a call for another replica's session is forwarded there (REPLICA_PEERS) or refused naming that replica. Empty: a single service, ids s_<uuid>.",
  },
  REPLICA_PEERS: {
    default: '',
    group: 'replicas',
    description:
      'Where the other replicas answer, for forwarding a call that reached the wrong one: id=http://host:port pairs, comma-separated (r2=http://10.0.0.2:3337,r3=…), or one template with {id} in it (http://{id}.pwj.default.svc.cluster.local:3337). Empty: such calls get SESSION_NOT_FOUND with data.replica.',
  },
  HUB_REPLICA: {
    default: '',
    group: 'replicas',
    description:
      'The replica that hosts the agent hub (WebSocket /agents, agents.* and tabs.*): another replica forwards those methods there. Empty: every replica serves its own hub (one replica, or a balancer that sends all of them to one).',
  },
  REPLICA_AGENT_PORT: {
    default: '0',
    group: 'replicas',
    description:
      "A TCP port answering HAProxy's agent-check with this replica's free session capacity as a weight (up 40%, drain when full, down while the browser is away). 0: off.",
  },
  REPLICA_FORWARD_TIMEOUT_MS: {
    default: '960000',
    group: 'replicas',
    description:
      'Bound on a call forwarded to its replica, from sending to the answer (16 min: past the longest call a method allows, agents.evaluate 15 min). Past it the caller gets RESOURCE_UNAVAILABLE (reason replica-timeout).',
  },
} as const;

export type ReplicaConfigKey = keyof typeof REPLICA_KEYS;

export interface ReplicaConfig {
  /** REPLICA_ID, or undefined for a single service. */
  replicaId: string | undefined;
  /** REPLICA_PEERS: an address for a replica id, or undefined when none is known. */
  replicaPeers: PeerAddresses;
  hubReplica: string | undefined;
  replicaAgentPort: number;
  replicaForwardTimeoutMs: number;
}

/** The peers' addresses (origins), by id: a fixed list or a template. */
export interface PeerAddresses {
  /** The origin replica `id` answers at, or undefined when none is configured for it. */
  addressOf(id: string): string | undefined;
  /** The configured peers (a template lists none). */
  readonly listed: ReadonlyMap<string, string>;
  /** The template, when REPLICA_PEERS is one (`http://{id}.pwj.ns.svc.cluster.local:3337`). */
  readonly template?: string;
}

function originOf(raw: string, fail: (message: string) => Error): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Refused below with the message every bad entry gets.
    throw fail(`each address must be an http:// origin like http://10.0.0.2:3337, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw fail(`each address must be an http:// origin like http://10.0.0.2:3337, got "${raw}"`);
  if (url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '')
    throw fail(`an address is an origin only (no path, query or credentials), got "${raw}"`);
  return url.origin;
}

/** Parses REPLICA_PEERS (see its description); `self` may not be among them. */
export function parsePeers(
  value: string,
  self: string | undefined,
  fail: (message: string) => Error,
): PeerAddresses {
  const raw = value.trim();
  if (raw.includes(PEER_ID_PLACEHOLDER)) {
    if (raw.includes(',') || raw.includes('='))
      throw fail('a template is one address with {id} in it, not a list');
    // Checked with a sample id: the template must make an origin of every id.
    originOf(raw.replaceAll(PEER_ID_PLACEHOLDER, 'sample-0'), fail);
    return {
      addressOf: (id) =>
        REPLICA_ID_PATTERN.test(id) ? originOf(raw.replaceAll(PEER_ID_PLACEHOLDER, id), fail) : undefined,
      listed: new Map(),
      template: raw,
    };
  }
  const listed = new Map<string, string>();
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const id = entry.slice(0, eq).trim();
    if (eq < 0 || !REPLICA_ID_PATTERN.test(id))
      throw fail(`each entry is id=http://host:port with an id like r2, got "${entry.trim()}"`);
    if (id === self) throw fail(`${id} is this replica (REPLICA_ID): a replica is not its own peer`);
    if (listed.has(id)) throw fail(`${id} is listed twice`);
    listed.set(id, originOf(entry.slice(eq + 1).trim(), fail));
  }
  return { addressOf: (id) => listed.get(id), listed };
}

/**
 * Reads the keys; `get` reads a key's text, `int(key, min, max)` is loadConfig's whole-number
 * reader, `fail(key, message)` makes the ConfigError naming the key.
 */
export function loadReplicaConfig(
  get: (key: ReplicaConfigKey) => string,
  int: (key: ReplicaConfigKey, min: number, max: number) => number,
  fail: (key: ReplicaConfigKey, message: string) => Error,
): ReplicaConfig {
  const id = get('REPLICA_ID').trim();
  if (id !== '' && !REPLICA_ID_PATTERN.test(id))
    throw fail('REPLICA_ID', `must be lower-case letters, digits and '-' (at most 63, e.g. r1), got "${id}"`);
  const replicaId = id === '' ? undefined : id;
  const hub = get('HUB_REPLICA').trim();
  if (hub !== '' && !REPLICA_ID_PATTERN.test(hub))
    throw fail('HUB_REPLICA', `must be a replica id like r1, got "${hub}"`);
  const peersText = get('REPLICA_PEERS');
  if (replicaId === undefined && (peersText.trim() !== '' || hub !== ''))
    throw fail(
      peersText.trim() !== '' ? 'REPLICA_PEERS' : 'HUB_REPLICA',
      'needs REPLICA_ID: only a replica forwards to its peers',
    );
  const replicaPeers = parsePeers(peersText, replicaId, (message) => fail('REPLICA_PEERS', message));
  if (hub !== '' && hub !== replicaId && replicaPeers.addressOf(hub) === undefined)
    throw fail('HUB_REPLICA', `${hub} has no address in REPLICA_PEERS, so agents.* could not reach it`);
  return {
    replicaId,
    replicaPeers,
    hubReplica: hub === '' ? undefined : hub,
    replicaAgentPort: int('REPLICA_AGENT_PORT', 0, 65_535),
    replicaForwardTimeoutMs: int('REPLICA_FORWARD_TIMEOUT_MS', 1, 3_600_000),
  };
}
