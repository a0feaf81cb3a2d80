import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** What Proxy-Authenticate names: the realm Chromium shows nowhere (Playwright answers the challenge). */
export const PROXY_REALM = 'playwright-jsonrpc egress';

/** One context's proxy login: the username names it, the password proves it. */
export interface ProxyLogin {
  username: string;
  password: string;
}

/**
 * The per-context logins of the egress proxy, for contexts on remote browser servers: each context
 * gets a random username and password (Playwright's per-context `proxy` option), the proxy answers
 * 407 to a request without a live login, and the login is revoked when its context ends. The
 * username maps a request to the context's label (its session), for the proxy's log.
 */
export class ProxyCredentials {
  private readonly logins = new Map<string, { password: Buffer; label: string }>();

  /** A fresh login for a context; `label` says whose it is in the proxy's log. */
  issue(label: string): ProxyLogin {
    const username = `c_${randomBytes(9).toString('base64url')}`;
    const password = randomBytes(24).toString('base64url');
    this.logins.set(username, { password: Buffer.from(password), label });
    return { username, password };
  }

  relabel(username: string, label: string): void {
    const login = this.logins.get(username);
    if (login !== undefined) login.label = label;
  }

  revoke(username: string): void {
    this.logins.delete(username);
  }

  get size(): number {
    return this.logins.size;
  }

  /** The label of the live login a request carries in Proxy-Authorization (Basic), or undefined. */
  check(req: http.IncomingMessage): string | undefined {
    const header = req.headers['proxy-authorization'];
    if (typeof header !== 'string') return undefined;
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (m === null) return undefined;
    const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const login = this.logins.get(decoded.slice(0, colon));
    if (login === undefined) return undefined;
    const given = Buffer.from(decoded.slice(colon + 1));
    if (given.length !== login.password.length || !timingSafeEqual(given, login.password)) return undefined;
    return login.label;
  }
}
