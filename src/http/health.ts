import express, { type Request, type Response, type Router } from 'express';

/** What /readyz reports (the session registry's capacity(): counts only, nothing of any tenant). */
export interface ServiceCapacity {
  sessions: number;
  maxSessions: number;
  free: number;
  pool: number;
}

/** The header every /readyz answer carries: creates this replica would accept now. */
export const FREE_SESSIONS_HEADER = 'X-Free-Sessions';

/** What /readyz says: ready, full (no free slot), or unavailable (the browser is down). */
export type Readiness = 'ready' | 'full' | 'unavailable';

/**
 * The /readyz answer: 200 when the browser is connected and a create would be accepted, 503
 * otherwise; free is 0 while the browser is down. Counts only: nothing of any tenant.
 */
export function readiness(
  browserReady: boolean,
  capacity: ServiceCapacity | undefined,
): { status: Readiness; free: number | undefined } {
  if (!browserReady) return { status: 'unavailable', free: capacity === undefined ? undefined : 0 };
  if (capacity === undefined) return { status: 'ready', free: undefined };
  return { status: capacity.free > 0 ? 'ready' : 'full', free: capacity.free };
}

/**
 * The same as one line of HAProxy's agent-check protocol: `up N%` (N: the free share of MAX_SESSIONS,
 * at least 1 % while a slot is free) sets the server's weight; `drain` when full keeps it up for the
 * sessions it holds but sends it no new ones; `down` when the browser is down.
 */
export function agentLine(
  status: Readiness,
  free: number | undefined,
  maxSessions: number | undefined,
): string {
  if (status === 'unavailable') return 'down';
  if (status === 'full') return 'drain';
  if (free === undefined || maxSessions === undefined) return 'up';
  return `up ${Math.max(1, Math.round((100 * free) / maxSessions))}%`;
}

/**
 * /healthz: the process answers. /readyz: the shared browser is connected and a session slot is free,
 * with the counts a load balancer weighs by (JSON; `?format=agent` for HAProxy's agent-check line).
 * Neither needs a key.
 */
export function healthRouter(browser: { readonly ready: boolean }, capacity?: () => ServiceCapacity): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (req: Request, res: Response) => {
    const format = req.query.format;
    if (format !== undefined && format !== 'json' && format !== 'agent') {
      res.status(400).type('text/plain').send('format must be json or agent\n');
      return;
    }
    const counts = capacity?.();
    const { status, free } = readiness(browser.ready, counts);
    res.set('Cache-Control', 'no-store');
    if (free !== undefined) res.set(FREE_SESSIONS_HEADER, String(free));
    if (format === 'agent') {
      // An agent line is information, not a verdict: always 200, the line says the state.
      res.type('text/plain').send(`${agentLine(status, free, counts?.maxSessions)}\n`);
      return;
    }
    const ready = status === 'ready';
    res.status(ready ? 200 : 503).json({
      status,
      ready,
      browser: browser.ready ? 'connected' : 'unavailable',
      ...(counts === undefined ? {} : { ...counts, free }),
    });
  });
  return router;
}
