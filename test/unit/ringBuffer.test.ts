import { describe, expect, it } from 'vitest';
import { RingBuffer } from '../../src/browser/events/ringBuffer.js';

describe('RingBuffer', () => {
  it('refuses a capacity that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new RingBuffer<number>(bad)).toThrow(RangeError);
  });

  it('keeps everything, oldest first, while under capacity', () => {
    const buf = new RingBuffer<string>(3);
    buf.push('a');
    buf.push('b');
    expect(buf.size).toBe(2);
    expect(buf.drain()).toEqual({ items: ['a', 'b'], dropped: 0 });
  });

  it('drops the oldest entries past capacity and counts them', () => {
    const buf = new RingBuffer<number>(3);
    for (let i = 1; i <= 10; i++) buf.push(i);
    expect(buf.size).toBe(3);
    expect(buf.drain()).toEqual({ items: [8, 9, 10], dropped: 7 });
  });

  it('a drain empties the buffer and resets the dropped count', () => {
    const buf = new RingBuffer<number>(2);
    for (let i = 0; i < 5; i++) buf.push(i);
    buf.drain();
    expect(buf.size).toBe(0);
    expect(buf.drain()).toEqual({ items: [], dropped: 0 });
    buf.push(42);
    expect(buf.drain()).toEqual({ items: [42], dropped: 0 });
  });

  it('a drained array is not changed by later pushes', () => {
    const buf = new RingBuffer<number>(2);
    buf.push(1);
    const first = buf.drain();
    buf.push(2);
    buf.push(3);
    buf.push(4);
    expect(first.items).toEqual([1]);
    expect(buf.drain()).toEqual({ items: [3, 4], dropped: 1 });
  });

  it('a capacity of one keeps only the newest', () => {
    const buf = new RingBuffer<string>(1);
    buf.push('x');
    buf.push('y');
    expect(buf.drain()).toEqual({ items: ['y'], dropped: 1 });
  });
});
