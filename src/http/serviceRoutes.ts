import { RUNNER_ROUTES } from './runnerApi.js';
import { SEED000_ROUTES } from './seed000Api.js';

/** Every route of the service, as the 404 answer lists them (`METHOD /path`, `{name}` for a part). */
export const SERVICE_ROUTES: readonly string[] = [
  'POST /rpc',
  'WebSocket /rpc',
  'POST /mcp',
  'GET /sessions/{id}/events',
  'WebSocket /agents',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openrpc.json',
  ...RUNNER_ROUTES,
  ...SEED000_ROUTES,
  'GET /sessions/{id}/screencast',
  'GET /ui',
];

/** The label of a path no route template matches: raw paths never become label values. */
export const UNKNOWN_ROUTE = 'other';

/** The console's files: every path under it is one route. */
const UI_PREFIX = /^\/ui(\/|$)/i;

/** Each route's path template (the front door `/` too), with the pattern Express would match it by. */
const TEMPLATES: readonly { template: string; pattern: RegExp }[] = [
  ...new Set(['/', ...SERVICE_ROUTES.map((route) => route.slice(route.indexOf(' ') + 1))]),
].map((template) => ({
  template,
  // Express matches paths in any case and with a trailing slash; a `{name}` part is one segment.
  pattern: new RegExp(
    `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`,
    'i',
  ),
}));

/**
 * The template of the route a path belongs to (`/sessions/{id}/events`), or UNKNOWN_ROUTE: what a
 * metric may carry as a label, since it is one of a fixed set whatever the caller sent.
 */
export function routeTemplate(path: string): string {
  const match = TEMPLATES.find(({ pattern }) => pattern.test(path));
  if (match !== undefined) return match.template;
  return UI_PREFIX.test(path) ? '/ui' : UNKNOWN_ROUTE;
}
