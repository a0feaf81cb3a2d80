import express, { type Router } from 'express';
import type { BrowserHost } from '../browser/browserHost.js';

/** /healthz: the process answers. /readyz: the shared browser is connected. Neither needs a key. */
export function healthRouter(browser: BrowserHost): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const ready = browser.ready;
    res.status(ready ? 200 : 503).json({ ready, browser: ready ? 'connected' : 'unavailable' });
  });
  return router;
}
