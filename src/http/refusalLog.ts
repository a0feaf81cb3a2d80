import type { Response } from 'express';
import type { Logger } from '../observability/logger.js';

/** Lines about refused requests per window: enough to see who is refused, too few for a flood to fill the log. */
export const REFUSAL_LOG_MAX = 20;
/** The window of REFUSAL_LOG_MAX. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;

/**
 * Why a request or a handshake was refused: a fixed set, so the metric's `reason` label stays
 * bounded. Each entry's text is the log line's message.
 */
export const REFUSAL_REASONS = {
  missing: 'request refused: no API key',
  invalid: 'request refused: invalid API key',
  placeholder:
    'request refused: the API key header holds an unexpanded placeholder (API_KEY unset in the client)',
  guess_limit: 'request refused: this address sent RATE_LIMIT_MAX wrong keys this window',
  address_limit: 'request refused: this address is past RATE_LIMIT_MAX without a valid key',
  key_limit: 'request refused: the API key is past RATE_LIMIT_MAX',
  batch_limit: "request refused: the batch does not fit in what is left of its key's RATE_LIMIT_MAX",
  socket_limit: 'request refused: too many open /rpc sockets for this key or address',
  origin: 'request refused: a browser origin on a WebSocket handshake',
  host: 'request refused: Host not allowed',
  other: 'request refused by its route (a cap of its own, or a target it may not reach)',
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** Why a request was refused for its key: none presented, one not configured, or a placeholder. */
export type KeyProblem = Extract<RefusalReason, 'missing' | 'invalid' | 'placeholder'>;

export function isRefusalReason(value: unknown): value is RefusalReason {
  return typeof value === 'string' && Object.hasOwn(REFUSAL_REASONS, value);
}

/** Marks an answer as a refusal for `reason`, for the refusal watch to count once it is sent. */
export function markRefusal(res: Response, reason: RefusalReason): void {
  res.locals.refusal = reason;
}

/** The reason markRefusal put on an answer, if any. */
export function markedRefusal(res: Response): RefusalReason | undefined {
  const marked: unknown = res.locals.refusal;
  return isRefusalReason(marked) ? marked : undefined;
}

/**
 * What the operator sees of one refusal: never the key, and the path without its query string
 * (`route` is its template, what the metric counts by).
 */
export interface Refusal {
  reason: RefusalReason;
  route: string;
  path: string;
  address: string;
  status: number;
  requestId?: string | undefined;
}

/** The longest path a line carries: enough to tell routes apart, too short to carry a payload. */
const LOGGED_PATH_CHARS = 200;

/**
 * One warn line per refused request (reason, route, path, client address, status), at most
 * REFUSAL_LOG_MAX per REFUSAL_LOG_WINDOW_MS; the first line of the next window says how many were
 * left out, so a flood costs the log a few lines a minute and is still visible.
 */
export class RefusalLog {
  private windowStart = Date.now();
  private logged = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly max = REFUSAL_LOG_MAX,
    private readonly windowMs = REFUSAL_LOG_WINDOW_MS,
  ) {}

  note(refusal: Refusal): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0)
        this.logger.warn(
          { suppressed: this.suppressed, windowMs: this.windowMs },
          'refusals not logged in the last window (REFUSAL_LOG_MAX)',
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
        route: refusal.route,
        path: refusal.path.slice(0, LOGGED_PATH_CHARS),
        address: refusal.address,
        status: refusal.status,
        ...(refusal.requestId === undefined ? {} : { requestId: refusal.requestId }),
      },
      REFUSAL_REASONS[refusal.reason],
    );
  }
}
