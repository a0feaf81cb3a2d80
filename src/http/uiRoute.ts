// The web console's static files (ui/ at the repository root) on /ui. They carry no data, so they
// are served without the key (a browser navigation cannot send a header); every data call the page
// makes carries the key in its Authorization header. A stricter CSP than helmet's default holds here.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

export const UI_PATH = '/ui';

/**
 * Only the service's own scripts, styles and connections; frames arrive as data: images. No inline
 * script or style, no other origin, no framing, no forms posting anywhere, no plugins.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

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

export function uiRouter(dir: string | undefined = findUiDir()): Router {
  const router = express.Router();
  router.use(UI_PATH, (_req, res, next) => {
    res.set('content-security-policy', UI_CSP);
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
