// The last export of a kind: answered again while its session is unchanged, built anew after a new
// entry or for another session, and let go LAST_EXPORT_KEEP_MS after it was made.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionLog } from '../../src/browser/events/sessionLog.js';
import { LastExport } from '../../src/methods/session/replay.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('LastExport', () => {
  it('answers an unchanged session again, and builds after a change or for another session', async () => {
    const last = new LastExport<number>(1_000);
    const log = new SessionLog();
    log.record({ kind: 'console', level: 'log', text: 'one' });
    let builds = 0;
    const make = () => Promise.resolve(++builds);
    expect(await last.answer({ log, replay: undefined }, make)).toBe(1);
    expect(await last.answer({ log, replay: undefined }, make)).toBe(1);
    log.record({ kind: 'console', level: 'log', text: 'two' });
    expect(await last.answer({ log, replay: undefined }, make)).toBe(2);
    expect(await last.answer({ log: new SessionLog(), replay: undefined }, make)).toBe(3);
  });

  it('lets the kept answer go after its keep time', async () => {
    vi.useFakeTimers();
    const last = new LastExport<number>(1_000);
    const log = new SessionLog();
    let builds = 0;
    const make = () => Promise.resolve(++builds);
    expect(await last.answer({ log, replay: undefined }, make)).toBe(1);
    vi.advanceTimersByTime(999);
    expect(await last.answer({ log, replay: undefined }, make)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await last.answer({ log, replay: undefined }, make)).toBe(2);
  });
});
