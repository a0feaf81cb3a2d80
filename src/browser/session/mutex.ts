/** Serialises async work: each run starts when the previous one settles, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  get busy(): boolean {
    return this.pending > 0;
  }

  /** Runs in progress or waiting their turn. */
  get size(): number {
    return this.pending;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(work, work);
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--,
    );
    return result;
  }
}
