// One export of a kind at a time for the whole service (a trace zip built, a video encoded): the
// work is heavy (compression, an encoder), and one key asking again and again must not take the
// cores every tenant's sessions share. A second request while one runs is refused with
// LIMIT_REACHED and a retryAfterMs, never queued behind it.
import { ServiceError } from '../../errors/serviceError.js';

export class ExportSlot {
  private busy = false;

  /** `what` names the export in the refusal; `retryAfterMs` is how soon one usually ends. */
  constructor(
    private readonly what: string,
    private readonly retryAfterMs: number,
  ) {}

  /** Runs `work` if no other runs now, else throws LIMIT_REACHED. */
  async run<T>(work: () => Promise<T>): Promise<T> {
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
    }
  }
}
