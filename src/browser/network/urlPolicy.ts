import { isIPv4, isIPv6 } from 'node:net';
import { hostname as machineName, networkInterfaces } from 'node:os';
import { ResolvedRefusals } from './resolvedRefusals.js';

/**
 * The navigation allow-list. The regex is matched against the canonical form of the URL (WHATWG
 * URL parsing), never the string the caller sent: `http://localhost@evil.test/` has host evil.test,
 * and `http://2130706433/` is http://127.0.0.1/.
 */
export type PolicyVerdict = { allowed: true; url: string } | { allowed: false; url: string; reason: string };

/** Schemes a subresource may use without a network request of its own. */
const LOCAL_SUBRESOURCE_SCHEMES = new Set(['data:', 'blob:']);

/** The WHATWG parse of a URL, or the verdict for one that is not absolute. */
function parseAbsolute(raw: string): URL | PolicyVerdict {
  try {
    return new URL(raw);
  } catch {
    return { allowed: false, url: raw, reason: 'not an absolute URL' };
  }
}

/**
 * Ports of other hosts no page may reach whatever the list says (the other replicas': REPLICA_PEERS).
 * `host` is one host (a name or an address; a loopback one stands for this machine under any of its
 * spellings) or a pattern of names (a peer address template).
 */
export interface RefusedEndpoint {
  host: string | RegExp;
  ports: ReadonlySet<number>;
  /** What the verdict calls it: "a port of another replica (REPLICA_PEERS)". */
  what: string;
}

export class UrlPolicy {
  /** Ports of this machine no page may reach whatever the list says: the service's own, the egress proxy's. */
  private readonly ownPorts = new Set<number>();
  private readonly refused: RefusedEndpoint[] = [];
  /** Names the service was bound to beyond the loopback spellings (HOST, the machine's name). */
  private readonly ownHosts = new Set<string>([bareHost(machineName())]);
  /**
   * What the egress proxy refused after resolving a name the list admits: the URL passes the
   * list, so a session asks here why such a request failed.
   */
  readonly resolvedRefusals = new ResolvedRefusals();

  constructor(readonly allowHostRegex: RegExp) {}

  /**
   * Refuses `port` on this machine from now on, whatever ALLOW_HOST_REGEX says: under any loopback
   * spelling (localhost, *.localhost, 127.x.y.z, 0.0.0.0, [::1], [::], [::ffff:7f00:1]), any address
   * of the machine's interfaces, its host name, and `bindHost` (the HOST the port listens on).
   */
  refuseOwnPort(port: number, bindHost: string): void {
    this.ownPorts.add(port);
    this.ownHosts.add(bareHost(bindHost));
  }

  /** Refuses `endpoint` from now on, whatever ALLOW_HOST_REGEX says. */
  refuseEndpoint(endpoint: RefusedEndpoint): void {
    this.refused.push(endpoint);
  }

  /** The refused endpoint of another host that host:port (a URL's hostname, or a resolved address) is. */
  refusedEndpoint(host: string, port: number): RefusedEndpoint | undefined {
    const bare = bareHost(host);
    const address = mappedIPv4(bare) ?? bare;
    return this.refused.find((e) => {
      if (!e.ports.has(port)) return false;
      if (e.host instanceof RegExp) return e.host.test(bare);
      const listed = bareHost(e.host);
      return listed === address || (this.isThisMachine(listed) && this.isThisMachine(bare));
    });
  }

  /** Whether host:port (a URL's hostname, or an address a name resolved to) is one of the refused own ports. */
  isOwnEndpoint(host: string, port: number): boolean {
    return this.ownPorts.has(port) && this.isThisMachine(host);
  }

  /** Whether `host` names this machine: a loopback spelling, an interface's address, its names. */
  private isThisMachine(host: string): boolean {
    const bare = bareHost(host);
    if (bare === 'localhost' || bare.endsWith('.localhost') || this.ownHosts.has(bare)) return true;
    const v4 = isIPv4(bare) ? bare : mappedIPv4(bare);
    if (v4 !== undefined && (v4.startsWith('127.') || v4 === '0.0.0.0')) return true;
    if (bare === '::1' || bare === '::') return true;
    if (v4 === undefined && !isIPv6(bare)) return false;
    return Object.values(networkInterfaces()).some((list) =>
      (list ?? []).some((i) => bareHost(i.address) === bare || i.address === v4),
    );
  }

  /** For a URL a caller asks to open (page.goto, tabs.open): only http(s) on the list, or about:blank. */
  checkNavigation(raw: string): PolicyVerdict {
    const url = parseAbsolute(raw);
    if (!(url instanceof URL)) return url;
    if (url.href === 'about:blank') return { allowed: true, url: url.href };
    return this.checkNetwork(url);
  }

  /** For a request the page makes: data: and blob: need no network; everything else as a navigation. */
  checkRequest(raw: string): PolicyVerdict {
    const url = parseAbsolute(raw);
    if (!(url instanceof URL)) return url;
    if (LOCAL_SUBRESOURCE_SCHEMES.has(url.protocol) || url.href === 'about:blank')
      return { allowed: true, url: url.href };
    return this.checkNetwork(url);
  }

  /** For a tunnel (CONNECT host:port) where only the origin is known. */
  checkOrigin(host: string, port: string): PolicyVerdict {
    const candidates = [`https://${host}:${port}/`, `http://${host}:${port}/`];
    for (const candidate of candidates) {
      const verdict = this.checkRequest(candidate);
      // The tunnel connects to `host` itself: allowed only when parsing it gave back the same host,
      // so `127.0.0.1#.evil.test` cannot pass as 127.0.0.1.
      if (verdict.allowed && sameHost(new URL(verdict.url).hostname, host)) return verdict;
    }
    return { allowed: false, url: `${host}:${port}`, reason: `${host}:${port} is outside the allow-list` };
  }

  private checkNetwork(url: URL): PolicyVerdict {
    const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
    if (scheme !== 'http:' && scheme !== 'https:') {
      return {
        allowed: false,
        url: url.href,
        reason: `the ${url.protocol} scheme is not allowed; only http and https are`,
      };
    }
    if (url.username || url.password) {
      // The verdict's URL is logged and returned: never with the credentials in it.
      const bare = new URL(url.href);
      bare.username = '';
      bare.password = '';
      return { allowed: false, url: bare.href, reason: 'URLs with credentials (user:pass@) are not allowed' };
    }
    const port = url.port === '' ? (scheme === 'https:' ? 443 : 80) : Number(url.port);
    if (this.isOwnEndpoint(url.hostname, port)) {
      return {
        allowed: false,
        url: url.href,
        reason: `${url.host} is one of the service's own ports (its API or its egress proxy), which no page may reach`,
      };
    }
    const other = this.refusedEndpoint(url.hostname, port);
    if (other !== undefined)
      return {
        allowed: false,
        url: url.href,
        reason: `${url.host} is ${other.what}, which no page may reach`,
      };
    // Match the canonical http(s) form, so a ws:// URL is judged by the same rule as its origin.
    const canonical =
      scheme === url.protocol ? url.href : `${scheme}//${url.host}${url.pathname}${url.search}`;
    if (!this.allowHostRegex.test(canonical)) {
      return {
        allowed: false,
        url: url.href,
        reason: `${url.host} is outside the allow-list (ALLOW_HOST_REGEX)`,
      };
    }
    return { allowed: true, url: url.href };
  }
}

/** A host without IPv6 brackets, lower case, without the trailing dot of a fully qualified name. */
function bareHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:127.0.0.1, canonically ::ffff:7f00:1). */
function mappedIPv4(host: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted?.[1] !== undefined) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (hex?.[1] === undefined || hex[2] === undefined) return undefined;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function sameHost(parsed: string, raw: string): boolean {
  return parsed.replace(/^\[|\]$/g, '') === raw.replace(/^\[|\]$/g, '').toLowerCase();
}
