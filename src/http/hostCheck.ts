import type { NextFunction, Request, Response } from 'express';
import { markRefusal } from './refusalLog.js';

/** What a refused Host is told: short, and never the Host itself (it is the attacker's text). */
export const HOST_REFUSED =
  'Host not allowed: the service answers only its own names (the loopback names, HOST and ALLOWED_HOSTS).';

/**
 * True when a Host header names one of `allowed`, on any port. The name is compared whole, so
 * `localhost.` or `127.0.0.1.rebind.test` is not `localhost`; a missing Host (HTTP/1.0) is refused,
 * since what it asks for cannot be told.
 */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (host === undefined) return false;
  const value = host.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  return m?.[1] !== undefined && allowed.includes(m[1]);
}

/**
 * Refuses (403, a short JSON body, nothing else) any HTTP request whose Host is not one of ours:
 * a DNS-rebinding page reaches 127.0.0.1 under its own name and would otherwise read what needs no
 * key (/healthz, /readyz) and spend the address's budget. Mounted before every route.
 */
export function requireAllowedHost(allowed: readonly string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (hostAllowed(req.headers.host, allowed)) {
      next();
      return;
    }
    markRefusal(res, 'host');
    res.status(403).json({ error: HOST_REFUSED });
  };
}
