// The push channel of one /rpc WebSocket: what session.subscribe sends its notifications on. It
// watches the socket's bufferedAmount, so a client that reads slower than its subscriptions produce
// makes them pause (and the session's log drop what they could not send, counted) instead of
// growing the process's memory: a subscription sends at most one notification past
// MAX_PUSH_BUFFERED_BYTES before it waits, so a socket that is not read holds at most that plus one
// entry per subscription (MAX_SUBSCRIPTIONS_PER_SOCKET), however much its sessions log.
import type { WebSocket } from 'ws';
import type { PushChannel } from '../rpc/defineMethod.js';

/** Notifications buffered for a socket past which its subscriptions pause until it reads. */
export const MAX_PUSH_BUFFERED_BYTES = 1024 * 1024;
/** How often a paused subscription looks whether its socket has drained (ws has no drain event). */
export const PUSH_DRAIN_POLL_MS = 50;

/** What a push channel uses of its socket (a ws WebSocket; a test's stand-in). */
export type PushSocket = Pick<WebSocket, 'readyState' | 'OPEN' | 'bufferedAmount' | 'send'>;

/** What one socket's calls share: its subscriptions, stopped when it closes. */
export class SocketPush {
  readonly subscriptions = new Map<string, { sessionId: string; stop(): void }>();

  constructor(
    private readonly ws: PushSocket,
    private readonly closed: AbortSignal,
  ) {
    closed.addEventListener('abort', () => {
      for (const subscription of this.subscriptions.values()) subscription.stop();
      this.subscriptions.clear();
      this.waiters.clear();
      this.stopPoll();
    });
  }

  /** The channel of one call on the socket; `answered` resolves once its answer was handed to the socket. */
  forCall(answered: Promise<void>): PushChannel {
    return {
      notify: (method, params) => this.notifyJson(method, JSON.stringify(params)),
      notifyJson: (method, params) => this.notifyJson(method, params),
      whenWritable: (resume) => this.whenWritable(resume),
      answered,
      closed: this.closed,
      subscriptions: this.subscriptions,
    };
  }

  /** `params` is JSON text of an object: the envelope is written around it, not serialised again. */
  private notifyJson(method: string, params: string): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    this.ws.send(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${params}}`);
    return this.ws.bufferedAmount <= MAX_PUSH_BUFFERED_BYTES;
  }

  /** Subscriptions waiting for the socket to drain; one poll timer serves them all. */
  private readonly waiters = new Set<() => void>();
  private poll: NodeJS.Timeout | undefined;

  private whenWritable(resume: () => void): () => void {
    if (this.closed.aborted) return () => undefined;
    this.waiters.add(resume);
    this.poll ??= setInterval(() => this.drainCheck(), PUSH_DRAIN_POLL_MS);
    return () => {
      this.waiters.delete(resume);
      if (this.waiters.size === 0) this.stopPoll();
    };
  }

  private drainCheck(): void {
    if (this.closed.aborted) {
      this.waiters.clear();
      this.stopPoll();
      return;
    }
    if (this.ws.bufferedAmount > MAX_PUSH_BUFFERED_BYTES) return;
    const resumed = [...this.waiters];
    this.waiters.clear();
    this.stopPoll();
    for (const resume of resumed) resume();
  }

  private stopPoll(): void {
    clearInterval(this.poll);
    this.poll = undefined;
  }
}
