// Messages a test's WebSocket client has received, taken in arrival order by what they match,
// each wait bounded by a deadline. Shared by the agent hub and the WebSocket /rpc suites.

export class Inbox<T> {
  /** Every message received, taken or not. */
  readonly received: T[] = [];
  private readonly taken = new Set<T>();
  private readonly listeners = new Set<() => void>();

  push(message: T): void {
    this.received.push(message);
    for (const listener of this.listeners) listener();
  }

  /** The first message not taken yet that matches, waiting for it with a deadline. */
  next(match: (m: T) => boolean, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const take = (): boolean => {
        const found = this.received.find((m) => !this.taken.has(m) && match(m));
        if (found === undefined) return false;
        this.taken.add(found);
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(found);
        return true;
      };
      const listener = () => void take();
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      if (!take()) this.listeners.add(listener);
    });
  }
}
