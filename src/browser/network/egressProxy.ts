// Room browser/network/: the network boundary (allow-list, egress proxy, request log, HAR, routes, conditions); imports engine/.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { PROXY_REALM, type ProxyCredentials } from '../engine/proxyCredentials.js';
import {
  pinnedLookup,
  resolveUpstream,
  systemLookup,
  type HostLookup,
  type Upstream,
  type UpstreamTarget,
} from './resolveUpstream.js';
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
  /** Resolves upstream host names; the system resolver unless a test answers for made-up names. */
  lookup?: HostLookup;
}

const LOCAL_ONLY: EgressProxyOptions = { host: '127.0.0.1', port: 0, advertisedHost: '127.0.0.1' };

/**
 * The browser's only way out. Chromium is launched with this proxy (loopback included), so every
 * request it makes passes here: navigations, every redirect hop (which Playwright's routing never
 * sees), frames, popups, workers, fetch/XHR and WebSockets. Each is checked against the allow-list
 * on its canonical URL; a refused one gets a 403 marked with BLOCKED_HEADER and never leaves. The
 * proxy then resolves the host itself, judges every address of the answer (resolveUpstream: no own
 * port, no internal address the list does not name) and connects only to those addresses.
 */
export class EgressProxy {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Duplex>();
  /**
   * Kept-alive upstream connections, reused per name and port: each went to an address checked
   * when it was opened.
   */
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

  /** Resolves and checks the target; a refusal is remembered so the session can say why. */
  private async resolve(target: UpstreamTarget): Promise<Upstream> {
    const upstream = await resolveUpstream(target, this.policy, this.options.lookup ?? systemLookup);
    if (upstream.refused) this.policy.resolvedRefusals.note(target.host, target.port, upstream.reason);
    return upstream;
  }

  /** Whether the allow-list admits the request of `url` addressed to `host` instead. */
  private admitsAt(url: URL, host: string): boolean {
    const addressed = new URL(url.href);
    addressed.hostname = host;
    return this.policy.checkRequest(addressed.href).allowed;
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
    this.forward(req, res, url, context).catch((error: unknown) => badGateway(res, url, error));
  }

  /** Sends an admitted plain HTTP request on to the checked addresses of its host. */
  private async forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    context: string,
  ): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || 80);
    // Before any answer is written, 'close' means the browser went away while the name resolved.
    let gone = false;
    res.once('close', () => (gone = true));
    let upstream: Upstream;
    try {
      upstream = await this.resolve({ host, port, admits: (address) => this.admitsAt(url, address) });
    } catch (error) {
      return badGateway(res, url, error);
    }
    if (gone) return;
    if (upstream.refused) return this.refuse(res, url.href, upstream.reason, context);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const request = http.request(
      {
        agent: this.agent,
        host,
        port,
        method: req.method,
        path: url.pathname + url.search,
        headers,
        timeout: UPSTREAM_IDLE_TIMEOUT_MS,
        lookup: pinnedLookup(host, upstream.addresses),
      },
      (up) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    request.on('timeout', () => request.destroy(new Error('upstream idle timeout')));
    request.on('error', (error) => badGateway(res, url, error));
    res.on('close', () => request.destroy());
    req.pipe(request);
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
    const target: UpstreamTarget = {
      host,
      port: Number(port),
      admits: (address) => this.policy.checkOrigin(address, port).allowed,
    };
    this.tunnel(
      socket,
      target,
      verdict.url,
      context,
      head,
      'HTTP/1.1 200 Connection Established\r\n\r\n',
    ).catch(() => socket.destroy());
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
    const target: UpstreamTarget = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      admits: (address) => this.admitsAt(url, address),
    };
    this.tunnel(socket, target, url.href, context, preamble, undefined).catch(() => socket.destroy());
  }

  /**
   * Connects `socket` to the checked addresses of the target: `reply` (a CONNECT's 200) once
   * connected, then `first` (an upgrade's request) upstream, then bytes both ways.
   */
  private async tunnel(
    socket: Duplex,
    target: UpstreamTarget,
    url: string,
    context: string,
    first: Buffer,
    reply: string | undefined,
  ): Promise<void> {
    let checked: Upstream;
    try {
      checked = await this.resolve(target);
    } catch {
      // The name does not resolve: the browser sees the tunnel fail (ERR_TUNNEL_CONNECTION_FAILED).
      socket.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    if (socket.destroyed) return;
    if (checked.refused) return this.refuseRaw(socket, url, checked.reason, context);
    const { host, port } = target;
    const upstream = net.connect({ port, host, lookup: pinnedLookup(host, checked.addresses) }, () => {
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

/** The errno code of an error (ENOTFOUND, ECONNREFUSED), else its message. */
function errorCode(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return 'code' in error && typeof error.code === 'string' ? error.code : error.message;
}

/** A 502 for a request whose upstream could not be reached; a stream already answering is cut. */
function badGateway(res: http.ServerResponse, url: URL, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`Bad gateway: ${url.host} could not be reached (${errorCode(error)}).`);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
