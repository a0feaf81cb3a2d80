import { describe, expect, it } from 'vitest';
import { SessionEvents } from '../../src/browser/events/sessionEvents.js';

const error = (text: string) => ({ kind: 'consoleError' as const, source: 'console' as const, text });

describe('SessionEvents', () => {
  it('answers the events since a mark, with increasing seqs', () => {
    const events = new SessionEvents(10);
    events.push(error('before'));
    const mark = events.mark();
    events.push(error('a'));
    events.push(error('b'));
    const { events: got, dropped } = events.since(mark);
    expect(got.map((e) => (e.kind === 'consoleError' ? e.text : ''))).toEqual(['a', 'b']);
    expect(got.map((e) => e.seq - mark)).toEqual([0, 1]);
    expect(dropped).toBe(0);
  });

  it('answers nothing for a mark taken after the last event', () => {
    const events = new SessionEvents(10);
    events.push(error('a'));
    expect(events.since(events.mark())).toEqual({ events: [], dropped: 0 });
  });

  it('keeps at most its capacity and counts what a reader missed', () => {
    const events = new SessionEvents(3);
    const mark = events.mark();
    for (let i = 0; i < 5; i++) events.push(error(String(i)));
    const { events: got, dropped } = events.since(mark);
    expect(got.map((e) => (e.kind === 'consoleError' ? e.text : ''))).toEqual(['2', '3', '4']);
    expect(dropped).toBe(2);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new SessionEvents(0)).toThrow(RangeError);
  });
});
