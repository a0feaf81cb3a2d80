/** Unprompted frames (status, ping, …) one agent connection may send per second, sustained: a status per evaluation step and a ping every 30 s need far less. */
export const AGENT_FRAME_RATE_PER_S = 20;
/** Frames one connection may send at once: maxConcurrency (at most 100) evaluations starting together, each with a status or two. */
export const AGENT_FRAME_BURST = 200;
/** Frames dropped within one window past which the connection is closed (1008): no agent overruns the rate this long by accident. */
export const AGENT_MAX_DROPPED_FRAMES = 500;
/** The window AGENT_MAX_DROPPED_FRAMES counts over. */
export const AGENT_DROP_WINDOW_MS = 10_000;

export type FrameVerdict = 'take' | 'drop' | 'abuse';

/**
 * A token bucket over the frames of one agent connection. A frame past the rate is dropped unread
 * (parsing it is the cost a flood imposes); too many drops in a window is abuse. An answer to a
 * call the hub made gives its token back: the hub, not the agent, decides how many of those come.
 */
export class FrameRateLimit {
  private tokens = AGENT_FRAME_BURST;
  private refilledAt: number;
  private windowStart = 0;
  private droppedInWindow = 0;
  /** Frames dropped since the connection opened. */
  dropped = 0;

  constructor(now: number = Date.now()) {
    this.refilledAt = now;
  }

  /** Whether the frame arriving now is read, dropped, or ends the connection. */
  admit(now: number = Date.now()): FrameVerdict {
    this.tokens = Math.min(
      AGENT_FRAME_BURST,
      this.tokens + ((now - this.refilledAt) * AGENT_FRAME_RATE_PER_S) / 1000,
    );
    this.refilledAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 'take';
    }
    this.dropped++;
    if (now - this.windowStart > AGENT_DROP_WINDOW_MS) {
      this.windowStart = now;
      this.droppedInWindow = 0;
    }
    this.droppedInWindow++;
    return this.droppedInWindow > AGENT_MAX_DROPPED_FRAMES ? 'abuse' : 'drop';
  }

  /** The frame answered a call of the hub's: it does not count against the agent. */
  refund(): void {
    this.tokens = Math.min(AGENT_FRAME_BURST, this.tokens + 1);
  }

  /** True for the first drop of a window: one log line per window, not one per frame. */
  get firstDropOfWindow(): boolean {
    return this.droppedInWindow === 1;
  }
}
