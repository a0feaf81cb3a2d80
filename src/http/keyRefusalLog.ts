import type { Logger } from '../observability/logger.js';

/** Lines about refused keys per window: enough to see who is refused, too few for a flood to fill the log. */
export const KEY_REFUSAL_LOG_MAX = 20;
/** The window of KEY_REFUSAL_LOG_MAX. */
export const KEY_REFUSAL_LOG_WINDOW_MS = 60_000;

/** Why a request was refused for its key: none presented, or one that is not configured. */
export type KeyProblem = 'missing' | 'invalid';

/** What the operator sees of one refusal: never the key, and the path without its query string. */
export interface KeyRefusal {
  reason: KeyProblem;
  path: string;
  address: string;
  status: number;
}

/**
 * One warn line per request refused for its key (reason, path, client address, status), at most
 * KEY_REFUSAL_LOG_MAX per KEY_REFUSAL_LOG_WINDOW_MS; the first line of the next window says how
 * many were left out, so a flood costs the log a few lines a minute and is still visible.
 */
export class KeyRefusalLog {
  private windowStart = Date.now();
  private logged = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly max = KEY_REFUSAL_LOG_MAX,
    private readonly windowMs = KEY_REFUSAL_LOG_WINDOW_MS,
  ) {}

  note(refusal: KeyRefusal): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0)
        this.logger.warn(
          { suppressed: this.suppressed, windowMs: this.windowMs },
          'API key refusals not logged in the last window (KEY_REFUSAL_LOG_MAX)',
        );
      this.windowStart = now;
      this.logged = 0;
      this.suppressed = 0;
    }
    if (this.logged >= this.max) {
      this.suppressed += 1;
      return;
    }
    this.logged += 1;
    this.logger.warn(
      {
        reason: refusal.reason,
        path: refusal.path.slice(0, 200),
        address: refusal.address,
        status: refusal.status,
      },
      refusal.reason === 'missing' ? 'request refused: no API key' : 'request refused: invalid API key',
    );
  }
}
