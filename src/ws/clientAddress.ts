import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * TRUSTED_PROXIES, compiled (src/config/configProxies.ts): whether the hop `hop` places from the service
 * (0: the direct peer) may say, in X-Forwarded-For, who sent it the request.
 */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The client address every per-address budget and log line uses, for HTTP requests (Express's
 * req.ip is this very call: app.ts sets `trust proxy` to the same function) and for the /rpc and
 * /agents WebSocket handshakes alike: the direct peer's address, or, while that peer is a trusted
 * proxy, the address it put last in X-Forwarded-For, and so on leftwards through trusted hops only.
 * With nothing trusted the header is never read, so a client cannot choose the name it is counted
 * under.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  // A socket already torn down has no address; the budgets still need a name.
  if (req.socket.remoteAddress === undefined) return 'unknown';
  return proxyaddr(req, trust);
}
