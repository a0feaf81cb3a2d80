import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressClass, allowListHost, isLoopbackName } from './addressClass.js';
import type { UrlPolicy } from './urlPolicy.js';

/**
 * Every address a host name resolves to: the egress proxy's resolver, injectable so that a test
 * can answer for a made-up name without asking real DNS.
 */
export type HostLookup = (hostname: string) => Promise<readonly dns.LookupAddress[]>;

/** The system resolver (getaddrinfo, as Node's sockets use it): every address of the answer. */
export const systemLookup: HostLookup = (hostname) => dns.promises.lookup(hostname, { all: true });

/** Where a request the allow-list admitted goes: the checked addresses, or why it may not go. */
export type Upstream =
  { refused: false; addresses: readonly dns.LookupAddress[] } | { refused: true; reason: string };

/** The host and port of a request the allow-list admitted. */
export interface UpstreamTarget {
  /** A name, or an address without IPv6 brackets. */
  host: string;
  port: number;
  /** Whether the allow-list admits the same request addressed to `host` (as allowListHost gives it). */
  admits(host: string): boolean;
}

/**
 * Resolves the host of a request the allow-list admitted and checks every address of the answer:
 * one of the service's own ports, a peer's or the balancer's is refused; a loopback, private,
 * link-local, shared or unspecified address is refused unless the allow-list admits the request
 * with that address as its host, or the name is localhost or *.localhost and the address loopback.
 * The list judged the name; this judges where the name goes (DNS rebinding). An address in the URL
 * is not looked up: the list judged it as written.
 */
export async function resolveUpstream(
  target: UpstreamTarget,
  policy: UrlPolicy,
  lookup: HostLookup,
): Promise<Upstream> {
  const family = isIP(target.host);
  if (family !== 0) return { refused: false, addresses: [{ address: target.host, family }] };
  const addresses = await lookup(target.host);
  if (addresses.length === 0) throw notFound(target.host);
  for (const { address } of addresses) {
    const reason = refusal(target, address, policy);
    if (reason !== undefined) return { refused: true, reason };
  }
  return { refused: false, addresses };
}

function refusal(target: UpstreamTarget, address: string, policy: UrlPolicy): string | undefined {
  const { host, port } = target;
  if (policy.isOwnEndpoint(address, port) || policy.refusedEndpoint(address, port) !== undefined)
    return `${host} resolves to ${address}:${port}, a port no page may reach (the service's, a peer's or the balancer's)`;
  const kind = addressClass(address);
  if (kind === undefined) return undefined;
  if (kind === 'loopback' && isLoopbackName(host)) return undefined;
  if (target.admits(allowListHost(address))) return undefined;
  return `${host} resolves to ${address}, a ${kind} address the allow-list does not name: a listed name may lead to a loopback, private, link-local, shared or unspecified address only when ALLOW_HOST_REGEX admits that address too`;
}

/**
 * A lookup for net.connect and http.request that answers the addresses already checked: the socket
 * connects where the check looked, with no second query a rebinding name could answer differently.
 */
export function pinnedLookup(host: string, addresses: readonly dns.LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const answer = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const first = answer[0];
    // As dns.lookup does: never call back before the caller's connect() has returned.
    process.nextTick(() => {
      if (first === undefined) callback(notFound(host), '');
      else if (options.all === true)
        callback(
          null,
          answer.map((a) => ({ ...a })),
        );
      else callback(null, first.address, first.family);
    });
  };
}

function notFound(host: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${host} has no address`);
  error.code = 'ENOTFOUND';
  return error;
}
