import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { EdgeLimits } from './rateLimits.js';
import { RefusalLog, markedRefusal, type Refusal } from './refusalLog.js';
import { routeTemplate } from './serviceRoutes.js';

/** The statuses counted as refusals even when the code that answered named no reason. */
const REFUSAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

/**
 * Every refusal the service answers, counted in `http_refusals_total{route,reason,status}` and
 * logged (RefusalLog: one warn line each, bounded per window, never the key or a query value).
 */
export class Refusals {
  private readonly log: RefusalLog;

  constructor(
    private readonly counter: Metrics['httpRefusals'],
    logger: Logger,
  ) {
    this.log = new RefusalLog(logger);
  }

  /** Counts a refusal, and logs it unless `logged` says its own line already did. */
  record(refusal: Refusal, options: { logged?: boolean } = {}): void {
    this.counter.inc({ route: refusal.route, reason: refusal.reason, status: String(refusal.status) });
    if (options.logged !== true) this.log.note(refusal);
  }
}

/**
 * Mounted before everything: once an answer is out, records it when a refusal marked it
 * (markRefusal) or when it is a 401, 403 or 429 some route answered on its own ('other').
 */
export function watchRefusals(refusals: Refusals) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // The whole path as it arrived: routers mounted under a prefix rewrite req.path while they run.
    const path = req.path;
    res.once('finish', () => {
      const marked = markedRefusal(res);
      if (marked === undefined && !REFUSAL_STATUSES.has(res.statusCode)) return;
      const requestId: unknown = res.locals.requestId;
      refusals.record({
        reason: marked ?? 'other',
        route: routeTemplate(path),
        path,
        address: EdgeLimits.addressId(req.ip),
        status: res.statusCode,
        requestId: typeof requestId === 'string' ? requestId : undefined,
      });
    });
    next();
  };
}
