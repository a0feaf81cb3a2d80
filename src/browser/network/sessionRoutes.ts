// A session's request routes (network.route): each one a Playwright context route, so the popups of
// the session are covered too. No route, no interception: Playwright pauses every request of the
// context once a route exists, so nothing is installed before the first network.route, and the last
// unroute removes it. The allow-list holds first: a request it refuses is never answered or
// continued by a route; it goes on as without routes, to the egress proxy that blocks and records it.
import type { BrowserContext, Route } from 'playwright-core';
import { CLOSED } from '../../errors/mapError.js';
import type { UrlGlob } from './urlGlob.js';
import type { UrlPolicy } from './urlPolicy.js';

/** Routes one session may have at a time. */
export const MAX_ROUTES = 50;
/**
 * network.route's schema bounds a body by this; the configured MAX_ROUTE_BODY_BYTES (at most this
 * much, configCaps.ts) is enforced by the handler.
 */
export const ROUTE_BODY_SCHEMA_CEILING_BYTES = 64 * 1024 * 1024;
/**
 * The automaton states of a session's route globs together (urlGlob.ts): each request is tested
 * against every route, so this bounds the work one request costs the service's thread.
 */
export const MAX_SESSION_GLOB_STATES = 10_000;

/** The codes of Playwright's route.abort, with the failure the page sees. */
export const ABORT_CODES = [
  'failed',
  'aborted',
  'accessdenied',
  'addressunreachable',
  'blockedbyclient',
  'blockedbyresponse',
  'connectionaborted',
  'connectionclosed',
  'connectionfailed',
  'connectionrefused',
  'connectionreset',
  'internetdisconnected',
  'namenotresolved',
  'timedout',
] as const;
export type AbortCode = (typeof ABORT_CODES)[number];

export type RouteAction =
  | { action: 'fulfill'; status: number; headers: Record<string, string>; body: Buffer }
  | { action: 'abort'; errorCode: AbortCode }
  | { action: 'continue'; headers: Record<string, string> };

export interface RouteSpec {
  pattern: string;
  /** The pattern compiled (network.route checked it). */
  glob: UrlGlob;
  times: number | undefined;
  action: RouteAction;
}

/** A route as network.routes lists it: header names, never values (they may be secrets). */
export interface RouteInfo {
  route_id: string;
  pattern: string;
  action: string;
  status?: number;
  errorCode?: string;
  headers?: string[];
  times: number | null;
  served: number;
}

interface ActiveRoute {
  id: string;
  spec: RouteSpec;
  matcher: RegExp | ((url: URL) => boolean);
  handler: (route: Route) => Promise<void>;
  served: number;
}

export class SessionRoutes {
  private readonly routes = new Map<string, ActiveRoute>();
  private nextId = 1;

  constructor(
    private readonly context: BrowserContext,
    private readonly policy: UrlPolicy,
    /** A line in the session's console log: a route that failed to serve says so there. */
    private readonly note: (type: string, text: string) => void,
  ) {}

  get size(): number {
    return this.routes.size;
  }

  /** The automaton states of the session's globs together (MAX_SESSION_GLOB_STATES). */
  get globStates(): number {
    let total = 0;
    for (const r of this.routes.values()) total += r.spec.glob.states;
    return total;
  }

  /** Bytes the session's fulfilled bodies hold. */
  get bodyBytes(): number {
    let total = 0;
    for (const r of this.routes.values())
      if (r.spec.action.action === 'fulfill') total += r.spec.action.body.length;
    return total;
  }

  /** Installs a route; its id (rt1, rt2 …). The newest route is tried first, as in Playwright. */
  async add(spec: RouteSpec): Promise<string> {
    const id = `rt${this.nextId++}`;
    const entry: ActiveRoute = {
      id,
      spec,
      // Matched here, not by Playwright: its globs become backtracking regular expressions. Playwright
      // only looks for the glob's plain text (a regex of literal characters, linear), so a request
      // without it goes on inside Playwright; one with it is matched by the glob in act().
      matcher:
        spec.glob.literal === ''
          ? (url) => spec.glob.test(url.href)
          : new RegExp(spec.glob.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      handler: (route) => this.serve(entry, route),
      served: 0,
    };
    this.routes.set(id, entry);
    try {
      await this.context.route(entry.matcher, entry.handler);
    } catch (error) {
      this.routes.delete(id);
      throw error;
    }
    return id;
  }

  /** Removes one route: false when there is none of that id (or it has served its times). */
  async remove(id: string): Promise<boolean> {
    const entry = this.routes.get(id);
    if (entry === undefined) return false;
    this.routes.delete(id);
    await this.context.unroute(entry.matcher, entry.handler);
    return true;
  }

  /** Removes every route; how many there were. */
  async removeAll(): Promise<number> {
    const all = [...this.routes.keys()];
    for (const id of all) await this.remove(id);
    return all.length;
  }

  list(): RouteInfo[] {
    return [...this.routes.values()].map(({ id, spec, served }) => {
      const a = spec.action;
      return {
        route_id: id,
        pattern: spec.pattern,
        action: a.action,
        ...(a.action === 'fulfill' ? { status: a.status } : {}),
        ...(a.action === 'abort' ? { errorCode: a.errorCode } : {}),
        ...(a.action === 'abort' ? {} : { headers: Object.keys(a.headers) }),
        times: spec.times ?? null,
        served,
      };
    });
  }

  /** Playwright's handler for one matching request: never throws (Playwright would only log it). */
  private async serve(entry: ActiveRoute, route: Route): Promise<void> {
    try {
      await this.act(entry, route);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The page or the session closed while the request was paused: nobody is left to answer.
      if (CLOSED.test(message)) return;
      this.note('error', `network.route ${entry.id} failed on a request: ${message.split('\n')[0] ?? ''}`);
    }
  }

  private async act(entry: ActiveRoute, route: Route): Promise<void> {
    const request = route.request();
    const { times, action } = entry.spec;
    // Outside the allow-list, or a route removed (or used up) while this request waited: the request
    // goes on as if the route did not exist, to the next route or to the network (the egress proxy).
    if (
      !entry.spec.glob.test(request.url()) ||
      !this.policy.checkRequest(request.url()).allowed ||
      this.routes.get(entry.id) !== entry ||
      (times !== undefined && entry.served >= times)
    ) {
      await route.fallback();
      return;
    }
    entry.served += 1;
    if (action.action === 'abort') await route.abort(action.errorCode);
    else if (action.action === 'fulfill')
      await route.fulfill({ status: action.status, headers: action.headers, body: action.body });
    else await route.continue({ headers: { ...request.headers(), ...action.headers } });
    // Used up: the next request must not pause for it. Removed after answering, since removing the
    // last route stops the interception, which lets a paused request go on to the network.
    if (times !== undefined && entry.served >= times && this.routes.get(entry.id) === entry)
      await this.remove(entry.id);
  }
}

const sessionRoutes = new WeakMap<BrowserContext, SessionRoutes>();

/** The routes of a session's context, created at its first network.route; they end with the context. */
export function routesOf(
  context: BrowserContext,
  policy: UrlPolicy,
  note: (type: string, text: string) => void,
): SessionRoutes {
  let routes = sessionRoutes.get(context);
  if (routes === undefined) {
    routes = new SessionRoutes(context, policy, note);
    sessionRoutes.set(context, routes);
  }
  return routes;
}

/** The routes of a context, when it has had any. */
export function existingRoutes(context: BrowserContext): SessionRoutes | undefined {
  return sessionRoutes.get(context);
}
