import type http from 'node:http';
import type { Duplex } from 'node:stream';

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Answers a WebSocket handshake with an HTTP error (and `headers`, such as Retry-After) and closes
 * the socket once the answer is out.
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Readonly<Record<string, string>> = {},
): void {
  const reasons: Record<number, string> = {
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    429: 'Too Many Requests',
  };
  const reason = reasons[status] ?? 'Service Unavailable';
  // Node drops its own error listener on upgrade: a reset peer must not become an uncaught error.
  socket.on('error', () => socket.destroy());
  socket.once('finish', () => socket.destroy());
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
  );
}

/**
 * Dispatches WebSocket upgrades of one HTTP server by pathname (`/agents`, `/rpc`): each
 * endpoint registers its path here. A path nobody registered is refused with 404, unless another
 * 'upgrade' listener was attached to the server on its own, which is then left to handle it.
 */
export class UpgradeRouter {
  private readonly routes = new Map<string, UpgradeHandler>();
  private server: http.Server | undefined;

  /**
   * `hostAllowed` judges every handshake's Host before any endpoint sees it (the same check as the
   * HTTP routes'), so a DNS-rebinding page can open neither /rpc nor /agents.
   */
  constructor(
    private readonly hostAllowed: (host: string | undefined) => boolean,
    private readonly hostRefused: string,
  ) {}

  route(pathname: string, handler: UpgradeHandler): this {
    if (this.routes.has(pathname)) throw new Error(`an upgrade handler for ${pathname} exists already`);
    this.routes.set(pathname, handler);
    return this;
  }

  attach(server: http.Server): void {
    this.server = server;
    server.on('upgrade', this.dispatch);
  }

  detach(): void {
    this.server?.off('upgrade', this.dispatch);
    this.server = undefined;
  }

  private readonly dispatch = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (!this.hostAllowed(req.headers.host)) {
      refuseUpgrade(socket, 403, JSON.stringify({ error: this.hostRefused }), 'application/json');
      return;
    }
    const handler = this.routes.get(pathnameOf(req.url));
    if (handler !== undefined) {
      handler(req, socket, head);
      return;
    }
    if (this.server !== undefined && this.server.listenerCount('upgrade') === 1) {
      refuseUpgrade(
        socket,
        404,
        `No WebSocket endpoint here; the endpoints are ${[...this.routes.keys()].join(', ')}.`,
      );
    }
  };
}

function pathnameOf(url: string | undefined): string {
  // The base only completes origin-form request targets (/agents?x=1); its host is never used.
  return URL.canParse(url ?? '/', 'http://localhost') ? new URL(url ?? '/', 'http://localhost').pathname : '';
}
