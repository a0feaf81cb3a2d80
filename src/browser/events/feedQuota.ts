// The feeds of a session's log each API key holds: its session.subscribe subscriptions on every one
// of its WebSocket /rpc sockets and its GET /sessions/{id}/events streams, counted together against
// one cap (MAX_SUBSCRIPTIONS_PER_KEY). Every feed is a listener on a log and a send of each entry,
// so the service's work grows with the feeds; the per-socket and per-stream caps alone let one key
// multiply them by its sockets until its feeds stall the calls of every other key.

/** The limit's name, as refusals and their data say it. */
export const FEED_LIMIT = 'MAX_SUBSCRIPTIONS_PER_KEY';

/** What a refused feed is told: the limit, its value, and how to get a place back. */
export function feedLimitMessage(limit: number): string {
  return `This API key already holds ${limit} subscriptions and event streams across its connections (${FEED_LIMIT} = ${limit}): call session.unsubscribe or close a GET /sessions/{id}/events stream first.`;
}

export class FeedQuota {
  /** Feeds held, by key; a key holding none has no entry. */
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  }

  /**
   * Takes a place for one feed of `owner` (a principal id). Answers the function that gives it
   * back, which counts once however often it is called; undefined when `owner` holds `limit` already.
   */
  take(owner: string): (() => void) | undefined {
    const n = this.heldBy(owner);
    if (n >= this.limit) return undefined;
    this.held.set(owner, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.heldBy(owner) - 1;
      if (left > 0) this.held.set(owner, left);
      else this.held.delete(owner);
    };
  }

  /** Feeds `owner` holds now. */
  heldBy(owner: string): number {
    return this.held.get(owner) ?? 0;
  }

  /** Keys holding at least one feed. */
  get owners(): number {
    return this.held.size;
  }
}
