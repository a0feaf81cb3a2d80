// proxy-addr (Express's own dependency, which req.ip runs on) ships no types: the part
// src/ws/clientAddress.ts and src/config/configProxies.ts use.
declare module 'proxy-addr' {
  import type { IncomingMessage } from 'node:http';

  /** Whether the hop `address`, `hop` places from the service (0: the direct peer), is trusted. */
  type TrustFunction = (address: string, hop: number) => boolean;

  interface ProxyAddr {
    /**
     * The client address: the peer's, or, while the hop is trusted, the next address of
     * X-Forwarded-For from its right end.
     */
    (req: IncomingMessage, trust: TrustFunction): string;
    /** Every address, peer first; with `trust`, up to the first untrusted one. */
    all(req: IncomingMessage, trust?: TrustFunction): string[];
    /** Compiles addresses, CIDRs and the names loopback, linklocal, uniquelocal; throws a TypeError on a bad one. */
    compile(list: string | readonly string[]): TrustFunction;
  }

  const proxyaddr: ProxyAddr;
  export default proxyaddr;
}
