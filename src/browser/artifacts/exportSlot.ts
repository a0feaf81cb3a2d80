// One export of a kind at a time for the whole service (a trace zip built, a video encoded), and
// for each key at most one every minIntervalMs: the work is heavy (compression, an encoder), and one
// key asking again and again must not take the cores every tenant's sessions share. A request while
// another runs, or too soon after the key's last, is refused with LIMIT_REACHED and a retryAfterMs,
// never queued.
import { ServiceError } from '../../errors/serviceError.js';

export class ExportSlot {
  private busy = false;
  /** When each key's last export of this kind ended (Date.now()), for the keys within the interval. */
  private readonly lastEnd = new Map<string, number>();

  /**
   * `what` names the export in the refusal; `retryAfterMs` is how soon one usually ends;
   * `minIntervalMs` the least time between the end of a key's export and the start of its next.
   */
  constructor(
    private readonly what: string,
    private readonly retryAfterMs: number,
    private readonly minIntervalMs = 0,
  ) {}

  /** Runs `work` for `key` if no other export runs and the key's last ended long enough ago, else throws LIMIT_REACHED. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const now = Date.now();
    for (const [k, end] of this.lastEnd) if (now - end >= this.minIntervalMs) this.lastEnd.delete(k);
    const last = this.lastEnd.get(key);
    if (last !== undefined)
      throw new ServiceError(
        'LIMIT_REACHED',
        `This key made a ${this.what} less than ${this.minIntervalMs} ms ago: one at most every ${this.minIntervalMs} ms (an unchanged session's is answered again at once).`,
        { limit: `${this.what}s per key`, max: 1, retryAfterMs: this.minIntervalMs - (now - last) },
      );
    if (this.busy)
      throw new ServiceError(
        'LIMIT_REACHED',
        `Another ${this.what} is being made on this service (one at a time): try again shortly.`,
        { limit: `${this.what}s at once`, max: 1, retryAfterMs: this.retryAfterMs },
      );
    this.busy = true;
    try {
      return await work();
    } finally {
      this.busy = false;
      if (this.minIntervalMs > 0) this.lastEnd.set(key, Date.now());
    }
  }
}
