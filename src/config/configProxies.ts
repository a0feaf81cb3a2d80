// TRUSTED_PROXIES: which direct peers may say, in X-Forwarded-For, whose request they
// pass on. Kept apart from configKeys.ts and config.ts (both over the file-size guideline); the
// table is spread into CONFIG_KEYS and the values into Config, as configUi.ts does. The address
// itself is read by src/ws/clientAddress.ts, for HTTP and for WebSocket handshakes alike.
import { BlockList, isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

/**
 * Whether a hop `hop` places from the service (0: the direct peer) may vouch for the one before it
 * (the same shape as src/ws/clientAddress.ts's TrustProxy: config files import nothing of the project).
 */
export type TrustProxy = (address: string, hop: number) => boolean;

/** The names proxy-addr (Express's `trust proxy` vocabulary) knows for address ranges. */
export const TRUSTED_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

export const TRUSTED_PROXY_KEYS = {
  TRUSTED_PROXIES: {
    default: '',
    group: 'http',
    description:
      'Load balancers whose X-Forwarded-For names the client every per-address budget counts, on HTTP and WebSocket handshakes (read from its right end through listed hops only): addresses, CIDRs (10.0.0.0/24, fd00::/64) or loopback, linklocal, uniquelocal, comma-separated. Empty: trust nothing. List the balancers only: /0 is refused, and a range of more than 256 addresses (wider than an IPv4 /24 or IPv6 /120, or linklocal, uniquelocal) logs a warning at start, since any host in it can name any client.',
  },
} as const;

export interface ProxyConfig {
  /** TRUSTED_PROXIES' entries, trimmed, in lower case (empty: trust nothing). */
  trustedProxies: readonly string[];
  /** The compiled list: what Express's `trust proxy` and the WebSocket handshakes both ask. */
  trustProxy: TrustProxy;
}

const trustNothing: TrustProxy = () => false;

/** Why `entry` is not an address, a CIDR or a range name (undefined: it is one). */
function entryProblem(entry: string): string | undefined {
  if ((TRUSTED_PROXY_NAMES as readonly string[]).includes(entry)) return undefined;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const prefix = slash < 0 ? undefined : entry.slice(slash + 1);
  const family = isIP(address);
  if (family === 0) return 'is not an IP address (IPv6 without brackets), a CIDR or a range name';
  if (prefix === undefined) return undefined;
  // An IPv4 netmask (10.0.0.0/255.0.0.0) is proxy-addr's too; anything else is a prefix length.
  if (family === 4 && isIP(prefix) === 4) return undefined;
  if (!/^\d{1,3}$/.test(prefix)) return 'has a prefix length that is not a number';
  const bits = Number(prefix);
  if (bits === 0) return 'trusts every address (/0): anyone could say any client address';
  const max = family === 4 ? 32 : 128;
  if (bits > max) return `has a prefix length over ${max}`;
  if (family === 6 && coversEveryIPv4(address, bits))
    return 'trusts every IPv4 address (IPv4-mapped ::ffff:0:0/96 lies inside it): anyone could say any client address';
  return undefined;
}

/** Whether an IPv6 subnet holds the whole IPv4-mapped range, which proxy-addr matches IPv4 clients against. */
function coversEveryIPv4(address: string, bits: number): boolean {
  const subnet = new BlockList();
  subnet.addSubnet(address, bits, 'ipv6');
  return subnet.check('::ffff:0:0', 'ipv6') && subnet.check('::ffff:ffff:ffff', 'ipv6');
}

/**
 * Parses TRUSTED_PROXIES (see its description) into its entries and the compiled trust function;
 * `fail(message)` makes the error that stops start-up naming the key.
 */
export function parseTrustedProxies(value: string, fail: (message: string) => Error): ProxyConfig {
  const entries = value
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.length > 0);
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem !== undefined)
      throw fail(
        `each entry must be an address, a CIDR (10.0.0.0/24, fd00::/64) or one of ${TRUSTED_PROXY_NAMES.join(', ')}; "${entry}" ${problem}`,
      );
  }
  if (entries.length === 0) return { trustedProxies: [], trustProxy: trustNothing };
  let trustProxy: TrustProxy;
  try {
    trustProxy = proxyaddr.compile(entries);
  } catch (error) {
    // What the checks above let through and proxy-addr still refuses (its message names the entry).
    throw fail(`not a list proxy-addr accepts: ${(error as Error).message}`);
  }
  return { trustedProxies: entries, trustProxy };
}

/**
 * An entry trusting more addresses than this many host bits hold (an IPv4 /24, an IPv6 /120: 256)
 * is a whole subnet or private range rather than a few balancers, and earns a start-up warning.
 */
export const WIDE_TRUST_HOST_BITS = 8;

/** Range names proxy-addr expands to whole ranges (10.0.0.0/8, fc00::/7, 169.254.0.0/16 …); loopback is this machine only. */
const WIDE_RANGE_NAMES: ReadonlySet<string> = new Set(['linklocal', 'uniquelocal']);

/** The prefix length of an IPv4 netmask (255.255.0.0 → 16): its set bits. */
function netmaskBits(mask: string): number {
  return mask
    .split('.')
    .map(Number)
    .reduce((bits, octet) => bits + octet.toString(2).replaceAll('0', '').length, 0);
}

/** The entries of a parsed TRUSTED_PROXIES that trust more than WIDE_TRUST_HOST_BITS of addresses. */
export function wideTrustedProxies(entries: readonly string[]): string[] {
  return entries.filter((entry) => {
    if (WIDE_RANGE_NAMES.has(entry)) return true;
    const slash = entry.indexOf('/');
    if (slash < 0) return false;
    const address = entry.slice(0, slash);
    const prefix = entry.slice(slash + 1);
    const family = isIP(address);
    const bits = family === 4 && isIP(prefix) === 4 ? netmaskBits(prefix) : Number(prefix);
    return (family === 4 ? 32 : 128) - bits > WIDE_TRUST_HOST_BITS;
  });
}

/**
 * The start-up warning for a TRUSTED_PROXIES that trusts whole ranges (undefined when it trusts
 * none): every host in them can forge X-Forwarded-For, so the operator is told which entries and
 * what keeps the others out.
 */
export function wideTrustWarning(entries: readonly string[]): string | undefined {
  const wide = wideTrustedProxies(entries);
  if (wide.length === 0) return undefined;
  return (
    `TRUSTED_PROXIES trusts whole address ranges (${wide.join(', ')}): any host in them can forge ` +
    'X-Forwarded-For and name any client, getting a fresh per-address budget (rate limit, wrong-key ' +
    'budget, sockets) for every name it makes up. List only the balancers, or let no other host in ' +
    'those ranges reach the service (a NetworkPolicy, a firewall).'
  );
}

/** Reads TRUSTED_PROXIES; `get` reads a key's text, `fail(key, message)` makes the ConfigError. */
export function loadProxyConfig(
  get: (key: keyof typeof TRUSTED_PROXY_KEYS) => string,
  fail: (key: string, message: string) => Error,
): ProxyConfig {
  return parseTrustedProxies(get('TRUSTED_PROXIES'), (message) => fail('TRUSTED_PROXIES', message));
}
