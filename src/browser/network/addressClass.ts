import { BlockList, isIP } from 'node:net';

/**
 * The kinds of address that lead inside a machine or its network. A name on the allow-list may
 * resolve to one (DNS rebinding: a public name answering 127.0.0.1 or 10.0.0.5) only when the
 * allow-list names that address as well; see EgressProxy.
 */
export type AddressClass = 'unspecified' | 'loopback' | 'private' | 'link-local' | 'shared';

/**
 * The ranges of each class, in CIDR notation; the family follows from the address. IPv4-mapped IPv6
 * addresses (::ffff:10.0.0.1) match the IPv4 ranges: BlockList checks them as the IPv4 address they carry.
 */
const RANGES: readonly (readonly [AddressClass, string])[] = [
  // "This network": Linux connects 0.0.0.0 (and the rest of 0/8 it accepts) to the machine itself.
  ['unspecified', '0.0.0.0/8'],
  ['loopback', '127.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  // Carrier-grade NAT space (RFC 6598): internal networks and some clouds' metadata services use it.
  ['shared', '100.64.0.0/10'],
  // Cloud metadata services (169.254.169.254) live here.
  ['link-local', '169.254.0.0/16'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  // Unique local addresses, IPv6's private ranges.
  ['private', 'fc00::/7'],
  ['link-local', 'fe80::/10'],
  // Site-local: deprecated, still routed inside some networks.
  ['private', 'fec0::/10'],
];

const LISTS: readonly (readonly [AddressClass, BlockList])[] = (() => {
  const lists = new Map<AddressClass, BlockList>();
  for (const [kind, range] of RANGES) {
    const slash = range.indexOf('/');
    const network = range.slice(0, slash);
    const list = lists.get(kind) ?? new BlockList();
    list.addSubnet(network, Number(range.slice(slash + 1)), isIP(network) === 4 ? 'ipv4' : 'ipv6');
    lists.set(kind, list);
  }
  return [...lists];
})();

/** An address without the zone of a scoped IPv6 address (fe80::1%eth0). */
function withoutZone(address: string): string {
  return address.replace(/%.*$/, '');
}

/**
 * The internal class of an IP address, or undefined for one that is none of them (a public
 * address). Throws for a string that is not an IP address: no caller may mistake a name for public.
 */
export function addressClass(address: string): AddressClass | undefined {
  const bare = withoutZone(address);
  const family = isIP(bare);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(([, list]) => list.check(bare, type))?.[0];
}

/**
 * The host an address is judged by on the allow-list: an IPv4 address as it is, an IPv4-mapped
 * IPv6 address as the IPv4 address it carries (::ffff:127.0.0.1 is 127.0.0.1 to the socket), any
 * other IPv6 address in the brackets and canonical form a URL gives it.
 */
export function allowListHost(address: string): string {
  const bare = withoutZone(address);
  const family = isIP(bare);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  if (family === 4) return bare;
  const canonical = new URL(`http://[${bare}]/`).hostname;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(canonical);
  if (mapped?.[1] === undefined || mapped[2] === undefined) return canonical;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Whether a host name is loopback by definition: `localhost` and `*.localhost` (RFC 6761). A list
 * that names one of them names loopback, so its loopback answer needs no listed address.
 */
export function isLoopbackName(host: string): boolean {
  const bare = host.toLowerCase().replace(/\.$/, '');
  return bare === 'localhost' || bare.endsWith('.localhost');
}
