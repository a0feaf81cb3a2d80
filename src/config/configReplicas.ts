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
      'Where the other replicas answer, for forwarding a call that reached the wrong one: id=http://host:port pairs, comma-separated (r2=http://10.0.0.2:3337,r3=…), or one template with {id} in it (http://{id}.pwj.default.svc.cluster.local:3337), filled only with the ids REPLICA_IDS lists. A call for a replica not configured here gets SESSION_NOT_FOUND with data.replica, and no connection is made. Empty: every such call does.',
  },
  REPLICA_IDS: {
    default: '',
    group: 'replicas',
    description:
      "With a REPLICA_PEERS template, required: every replica id of the deployment, comma-separated, this one included (pwj-0,pwj-1,pwj-2). The template is filled with these ids only, so a session id cannot make a replica forward to a host of its choosing (an id such as localhost, or a cluster service's name). Not with a list: the list names its peers.",
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
  BALANCER_URLS: {
    default: '',
    group: 'replicas',
    description:
      "The load balancer's own addresses as a page could name them (origins, comma-separated: http://browser.example.internal,http://10.0.0.9:8080). Through them a page would reach the replicas as it may not reach their ports, spending a key's rate limits or probing the API, so each host and port is refused to every page whatever ALLOW_HOST_REGEX says (NAVIGATION_BLOCKED; the egress proxy answers 403, also for a name that resolves to a listed address), as the service's own ports are. A loopback address stands for every spelling of this machine. Empty: none.",
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
  /** BALANCER_URLS: the balancer's origins, refused to pages. */
  balancerUrls: readonly string[];
}

/** The peers' addresses (origins), by id: a fixed list or a template. */
export interface PeerAddresses {
  /**
   * The origin replica `id` answers at, or undefined when none is configured for it: an id the list
   * does not hold, or one REPLICA_IDS does not list (a template).
   */
  addressOf(id: string): string | undefined;
  /** The configured peers (a template lists none). */
  readonly listed: ReadonlyMap<string, string>;
  /** The template, when REPLICA_PEERS is one (`http://{id}.pwj.ns.svc.cluster.local:3337`). */
  readonly template?: string;
  /** REPLICA_IDS, with a template: the only ids it is filled with. */
  readonly templateIds?: ReadonlySet<string>;
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

/** Parses REPLICA_IDS: ids in the replica id form, each once, `self` among them. */
function parseTemplateIds(
  value: string,
  self: string | undefined,
  fail: (message: string) => Error,
): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const raw of value.split(',')) {
    const id = raw.trim();
    if (id === '') continue;
    if (!REPLICA_ID_PATTERN.test(id))
      throw fail(`each id is lower-case letters, digits and '-' (at most 63, e.g. pwj-0), got "${id}"`);
    if (ids.has(id)) throw fail(`${id} is listed twice`);
    ids.add(id);
  }
  if (self !== undefined && !ids.has(self))
    throw fail(`does not list this replica (REPLICA_ID ${self}): list every replica of the deployment`);
  return ids;
}

/**
 * Parses REPLICA_PEERS (see its description) and, with a template, REPLICA_IDS; `self` may not be
 * among a list's peers. `fail(key, message)` makes the error naming the key at fault.
 */
export function parsePeers(
  value: string,
  idsText: string,
  self: string | undefined,
  fail: (key: 'REPLICA_PEERS' | 'REPLICA_IDS', message: string) => Error,
): PeerAddresses {
  const raw = value.trim();
  const failPeers = (message: string): Error => fail('REPLICA_PEERS', message);
  if (raw.includes(PEER_ID_PLACEHOLDER)) {
    if (raw.includes(',') || raw.includes('='))
      throw failPeers('a template is one address with {id} in it, not a list');
    // Checked with a sample id: the template must make an origin of every id.
    originOf(raw.replaceAll(PEER_ID_PLACEHOLDER, 'sample-0'), failPeers);
    // Any id would make a host of the session id's choosing (http://{id}:3337 with id localhost):
    // the template is filled with the deployment's own ids only.
    if (idsText.trim() === '')
      throw fail(
        'REPLICA_IDS',
        'a REPLICA_PEERS template needs the list of replica ids it may be filled with (pwj-0,pwj-1,…)',
      );
    const templateIds = parseTemplateIds(idsText, self, (message) => fail('REPLICA_IDS', message));
    return {
      addressOf: (id) =>
        templateIds.has(id) ? originOf(raw.replaceAll(PEER_ID_PLACEHOLDER, id), failPeers) : undefined,
      listed: new Map(),
      template: raw,
      templateIds,
    };
  }
  if (idsText.trim() !== '')
    throw fail(
      'REPLICA_IDS',
      'only with a REPLICA_PEERS template: a list of id=address pairs names its peers',
    );
  const listed = new Map<string, string>();
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const id = entry.slice(0, eq).trim();
    if (eq < 0 || !REPLICA_ID_PATTERN.test(id))
      throw failPeers(`each entry is id=http://host:port with an id like r2, got "${entry.trim()}"`);
    if (id === self) throw failPeers(`${id} is this replica (REPLICA_ID): a replica is not its own peer`);
    if (listed.has(id)) throw failPeers(`${id} is listed twice`);
    listed.set(id, originOf(entry.slice(eq + 1).trim(), failPeers));
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
  const idsText = get('REPLICA_IDS');
  if (replicaId === undefined) {
    const set = (['REPLICA_PEERS', 'REPLICA_IDS', 'HUB_REPLICA'] as const).find(
      (key) => get(key).trim() !== '',
    );
    if (set !== undefined) throw fail(set, 'needs REPLICA_ID: only a replica forwards to its peers');
  }
  const replicaPeers = parsePeers(peersText, idsText, replicaId, fail);
  if (hub !== '' && hub !== replicaId && replicaPeers.addressOf(hub) === undefined)
    throw fail(
      'HUB_REPLICA',
      `${hub} has no address in REPLICA_PEERS (a template: not in REPLICA_IDS), so agents.* could not reach it`,
    );
  return {
    replicaId,
    replicaPeers,
    hubReplica: hub === '' ? undefined : hub,
    replicaAgentPort: int('REPLICA_AGENT_PORT', 0, 65_535),
    replicaForwardTimeoutMs: int('REPLICA_FORWARD_TIMEOUT_MS', 1, 3_600_000),
    balancerUrls: get('BALANCER_URLS')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map((entry) => originOf(entry, (message) => fail('BALANCER_URLS', message))),
  };
}
