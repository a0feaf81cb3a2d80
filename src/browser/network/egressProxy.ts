// Room browser/network/: the network boundary (allow-list, egress proxy, request log, HAR, routes, conditions); imports engine/.
import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { PROXY_REALM, type ProxyCredentials } from '../engine/proxyCredentials.js';
import type { UrlPolicy } from './urlPolicy.js';

/** Marks a response the proxy refused, so a session can tell a blocked request from a real 403. */
export const BLOCKED_HEADER = 'x-playwright-jsonrpc-blocked';

/** An upstream that accepts the connection but never answers must not pin a proxy socket forever. */
const UPSTREAM_IDLE_TIMEOUT_MS = 120_000;

const HOP_BY_HOP = new Set([
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

export interface BlockedRequest {
  url: string;
  reason: string;
  /** The context the request came from, when the proxy checks per-context logins (remote browsers). */
  context?: string;
}

/** Where the proxy listens and how browsers reach it, and whether it checks per-context logins. */
export interface EgressProxyOptions {
  /** EGRESS_PROXY_HOST: the address it binds (loopback unless remote browser servers must reach it). */
  host: string;
  /** EGRESS_PROXY_PORT: 0 for any free port. */
  port: number;
  /** EGRESS_PROXY_ADVERTISED_HOST: the name or address browsers are told to use. */
  advertisedHost: string;
  /** Set for remote browsers: every request must carry a live per-context login, else 407. */
  credentials?: ProxyCredentials;
}

const LOCAL_ONLY: EgressProxyOptions = { host: '127.0.0.1', port: 0, advertisedHost: '127.0.0.1' };

/**
 * The browser's only way out. Chromium is launched with this proxy (loopback included), so every
 * request it makes passes here: navigations, every redirect hop (which Playwright's routing never
 * sees), frames, popups, workers, fetch/XHR and WebSockets. Each is checked against the allow-list
 * on its canonical URL; a refused one gets a 403 marked with BLOCKED_HEADER and never leaves.
 */
export class EgressProxy {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Duplex>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    private readonly policy: UrlPolicy,
    private readonly onBlocked: (blocked: BlockedRequest) => void = () => undefined,
    private readonly options: EgressProxyOptions = LOCAL_ONLY,
  ) {}

  async start(): Promise<string> {
    const server = http.createServer((req, res) => this.handleRequest(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.handleConnect(req, socket, head),
    );
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      this.handleUpgrade(req, socket, head),
    );
    server.on('connection', (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => resolve());
    });
    this.server = server;
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('egress proxy has no TCP address');
    // A page sending a request to the proxy itself would make it a second, unchecked hop.
    this.policy.refuseOwnPort(address.port, this.options.host);
    this.policy.refuseOwnPort(address.port, this.options.advertisedHost);
    const host = this.options.advertisedHost;
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /**
   * With per-context logins (remote browsers), the context a request comes from; undefined when the
   * request has no live login (the caller answers 407). Without them, '' (the local browser).
   */
  private login(req: http.IncomingMessage): string | undefined {
    const credentials = this.options.credentials;
    return credentials === undefined ? '' : credentials.check(req);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Resolves a name for an upstream connection, refusing it when the name leads to one of the
   * service's own ports (an allowed name that resolves to 127.0.0.1, say), to a peer replica's
   * port at an address REPLICA_PEERS lists or to a balancer's at an address BALANCER_URLS lists: the
   * policy judged the name as written, this judges where it goes. IP literals are not looked up; the policy judged them.
   */
  private lookupNotOwn(port: number): net.LookupFunction {
    return (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error !== null) return callback(error, []);
        const own = addresses.find(
          (a) =>
            this.policy.isOwnEndpoint(a.address, port) ||
            this.policy.refusedEndpoint(a.address, port) !== undefined,
        );
        if (own !== undefined) {
          const refused: NodeJS.ErrnoException = new Error(
            `${hostname} resolves to ${own.address}:${port}, a port no page may reach (the service's, a peer's or the balancer's)`,
          );
          refused.code = 'EOWNPORT';
          return callback(refused, []);
        }
        const first = addresses[0];
        if (options.all === true || first === undefined) return callback(null, addresses);
        callback(null, first.address, first.family);
      });
    };
  }

  private refuse(res: http.ServerResponse, url: string, reason: string, context: string): void {
    this.onBlocked({ url, reason, ...(context === '' ? {} : { context }) });
    const body = `<!doctype html><title>Blocked</title><p>Blocked by the service's allow-list: ${escapeHtml(reason)}</p>`;
    res.writeHead(403, {
      'content-type': 'text/html; charset=utf-8',
      [BLOCKED_HEADER]: '1',
      'cache-control': 'no-store',
    });
    res.end(body);
  }

  private handleRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = req.url ?? '';
    const context = this.login(req);
    if (context === undefined) {
      res.writeHead(407, {
        'proxy-authenticate': `Basic realm="${PROXY_REALM}"`,
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
      });
      res.end("Proxy authentication required: this proxy serves only the service's own browser contexts.");
      return;
    }
    const verdict = this.policy.checkRequest(target);
    if (!verdict.allowed) return this.refuse(res, verdict.url, verdict.reason, context);
    const url = new URL(verdict.url);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = http.request(
      {
        agent: this.agent,
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 80,
        method: req.method,
        path: url.pathname + url.search,
        headers,
        timeout: UPSTREAM_IDLE_TIMEOUT_MS,
        lookup: this.lookupNotOwn(Number(url.port || 80)),
      },
      (up) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('upstream idle timeout')));
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end(`Bad gateway: ${url.host} could not be reached (${error.code ?? error.message}).`);
      } else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /**
   * Node removes its own error listener from a socket handed to 'connect' or 'upgrade': without
   * one, a reset from the browser would be an uncaught exception.
   */
  private guard(socket: Duplex): void {
    socket.on('error', () => socket.destroy());
  }

  private refuseRaw(socket: Duplex, url: string, reason: string, context: string): void {
    this.onBlocked({ url, reason, ...(context === '' ? {} : { context }) });
    socket.end(`HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: 1\r\ncontent-length: 0\r\n\r\n`);
  }

  /** A tunnel or upgrade without a live per-context login: 407, and the socket closes. */
  private challengeRaw(socket: Duplex): void {
    socket.end(
      `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="${PROXY_REALM}"\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
    );
  }

  private handleConnect(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    this.guard(socket);
    const context = this.login(req);
    if (context === undefined) return this.challengeRaw(socket);
    const [host = '', port = '443'] = splitHostPort(req.url ?? '');
    const verdict = this.policy.checkOrigin(host, port);
    if (!verdict.allowed) return this.refuseRaw(socket, verdict.url, verdict.reason, context);
    this.tunnel(socket, host, Number(port), head, 'HTTP/1.1 200 Connection Established\r\n\r\n');
  }

  private handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    this.guard(socket);
    const context = this.login(req);
    if (context === undefined) return this.challengeRaw(socket);
    const verdict = this.policy.checkRequest(req.url ?? '');
    if (!verdict.allowed) return this.refuseRaw(socket, verdict.url, verdict.reason, context);
    const url = new URL(verdict.url);
    const lines = [`${req.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] ?? '';
      if (name.toLowerCase().startsWith('proxy-')) continue;
      lines.push(`${name}: ${req.rawHeaders[i + 1] ?? ''}`);
    }
    const preamble = Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), head]);
    this.tunnel(socket, url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 80), preamble, undefined);
  }

  private tunnel(socket: Duplex, host: string, port: number, first: Buffer, reply: string | undefined): void {
    const upstream = net.connect({ port, host, lookup: this.lookupNotOwn(port) }, () => {
      if (reply !== undefined) socket.write(reply);
      if (first.length > 0) upstream.write(first);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.setTimeout(UPSTREAM_IDLE_TIMEOUT_MS, () => upstream.destroy());
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      socket.destroy();
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => upstream.destroy());
  }
}

function splitHostPort(authority: string): [string, string] {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  return m ? [m[1] ?? '', m[2] ?? ''] : [authority, '443'];
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
