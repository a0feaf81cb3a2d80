// The web console's static files (ui/ at the repository root) on /ui. They carry no data, so they
// are served without the key (a browser navigation cannot send a header); every data call the page
// makes carries the key in its Authorization header. A stricter CSP than helmet's default holds here.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { acceptsMediaType } from './restCommon.js';

export const UI_PATH = '/ui';
/** Asked for by every browser on every load; answered empty, without the key. */
export const FAVICON_PATH = '/favicon.ico';

/**
 * True when an Accept header names text/html with a q above 0, as a browser's navigation does; an
 * API client's (none, a wildcard, `application/json`) does not, and keeps the API's answer.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  return acceptsMediaType(accept, 'text/html');
}

/**
 * The pages' policy: only the service's own scripts and styles (no inline script or style, no CDN);
 * images from the service or data:/blob: URLs (frames, screenshots); connections to the service and
 * to `connectOrigins`; no framing, no forms posting anywhere, no plugins. No
 * upgrade-insecure-requests: the service usually runs on plain http on loopback.
 */
export function uiContentSecurityPolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    ['connect-src', "'self'", ...connectOrigins].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
    // No HTML sink takes a string: a page's text that reached one would throw, not run.
    "require-trusted-types-for 'script'",
  ].join('; ');
}

/** The console's policy: it connects to the service only. */
export const UI_CSP = uiContentSecurityPolicy([]);

/**
 * The runner page's files: the page calls the Messages API from the browser, so its policy also
 * admits the configured model origins (UI_MODEL_API_ORIGINS); every other file of /ui has UI_CSP.
 */
const RUNNER_FILE = /^\/runner(Loop|Service|Samples|SamplePicker)?\.(html|js|css|json)$/;

export interface UiRouteOptions {
  /** UI_MODEL_API_ORIGINS: where the runner page may send its model calls. */
  modelApiOrigins: readonly string[];
  /** The folder served; findUiDir() when not given. */
  dir?: string | undefined;
}

/**
 * The ui/ folder, whether the service runs from src/http (tsx) or dist/src/http (node): the first
 * folder up from here holding ui/index.html. Undefined when none does (a copy without the console).
 */
export function findUiDir(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (const up of ['../..', '../../..']) {
    const dir = join(from, up, 'ui');
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

export function uiRouter(options: UiRouteOptions): Router {
  const dir = 'dir' in options ? options.dir : findUiDir();
  const runnerPolicy = uiContentSecurityPolicy(options.modelApiOrigins);
  const router = express.Router();
  // The front door: a browser opening the service's address lands on the console (which asks for
  // the key) rather than on the key check's 401 JSON; any other client gets the API's answer.
  router.get('/', (req, res, next) => {
    res.vary('Accept');
    if (acceptsHtml(req.get('accept'))) res.redirect(302, `${UI_PATH}/`);
    else next();
  });
  // Every browser asks for /favicon.ico on each load of the console: an empty answer, before the key
  // check, so it is neither a 401 in the browser's console nor a refusal in the service's log.
  router.get(FAVICON_PATH, (_req, res) => {
    res.set('cache-control', 'public, max-age=86400').status(204).end();
  });
  router.use(UI_PATH, (req, res, next) => {
    res.set('content-security-policy', RUNNER_FILE.test(req.path) ? runnerPolicy : UI_CSP);
    // Served again after an upgrade: the browser revalidates rather than runs yesterday's script.
    res.set('cache-control', 'no-cache');
    next();
  });
  // Relative URLs of the page resolve under /ui/ only with the trailing slash.
  router.get(UI_PATH, (req, res, next) => {
    if (req.path !== UI_PATH) return next();
    res.redirect(301, `${UI_PATH}/`);
  });
  if (dir !== undefined)
    router.use(UI_PATH, express.static(dir, { index: 'index.html', redirect: false, dotfiles: 'ignore' }));
  // Not a file of the console: a 404 here, rather than the key check's 401 further on.
  router.use(UI_PATH, (_req, res) => {
    res
      .status(404)
      .type('text/plain')
      .send(
        dir === undefined
          ? 'The web console is not installed here: its ui/ folder is missing.'
          : 'Not found.',
      );
  });
  return router;
}
