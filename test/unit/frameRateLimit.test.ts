// The agent frame token bucket, on a clock the test drives.
import { describe, expect, it } from 'vitest';
import {
  AGENT_DROP_WINDOW_MS,
  AGENT_FRAME_BURST,
  AGENT_FRAME_RATE_PER_S,
  AGENT_MAX_DROPPED_FRAMES,
  FrameRateLimit,
} from '../../src/hub/frameRateLimit.js';

describe('FrameRateLimit', () => {
  it('takes a full burst, drops the next frame, and refills at the rate', () => {
    const limit = new FrameRateLimit(0);
    for (let i = 0; i < AGENT_FRAME_BURST; i++) expect(limit.admit(0)).toBe('take');
    expect(limit.admit(0)).toBe('drop');
    expect(limit.firstDropOfWindow).toBe(true);
    expect(limit.admit(0)).toBe('drop');
    expect(limit.firstDropOfWindow).toBe(false);
    expect(limit.admit(1000 / AGENT_FRAME_RATE_PER_S)).toBe('take');
    expect(limit.dropped).toBe(2);
  });

  it('gives back the token of an answer to the hub', () => {
    const limit = new FrameRateLimit(0);
    for (let i = 0; i < AGENT_FRAME_BURST * 3; i++) {
      expect(limit.admit(0)).toBe('take');
      limit.refund();
    }
  });

  it('calls it abuse past the dropped-frame cap within a window, and forgives a new window', () => {
    const limit = new FrameRateLimit(0);
    for (let i = 0; i < AGENT_FRAME_BURST; i++) limit.admit(0);
    for (let i = 0; i < AGENT_MAX_DROPPED_FRAMES; i++) expect(limit.admit(1)).toBe('drop');
    expect(limit.admit(1)).toBe('abuse');
    const later = 1 + AGENT_DROP_WINDOW_MS + 1;
    for (let i = 0; i < AGENT_FRAME_BURST; i++) expect(limit.admit(later)).toBe('take');
    expect(limit.admit(later)).toBe('drop');
  });
});
