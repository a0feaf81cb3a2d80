/** A bounded FIFO: past its capacity the oldest entry goes, and the count of dropped ones is kept. */
export class RingBuffer<T> {
  private items: T[] = [];
  private droppedCount = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.capacity) {
      this.items.shift();
      this.droppedCount++;
    }
  }

  get size(): number {
    return this.items.length;
  }

  /** Everything buffered, oldest first, and how many were dropped since the last drain; empties the buffer. */
  drain(): { items: T[]; dropped: number } {
    const out = { items: this.items, dropped: this.droppedCount };
    this.items = [];
    this.droppedCount = 0;
    return out;
  }
}
