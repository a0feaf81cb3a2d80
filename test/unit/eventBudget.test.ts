import { describe, expect, it } from 'vitest';
import { EventBudget, FLOOD_GAP_MS } from '../../src/browser/events/eventBudget.js';

describe('EventBudget', () => {
  it('admits a burst, then the rate, and counts what it drops', () => {
    let now = 0;
    const budget = new EventBudget(10, 3, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    expect(budget.takeDropped()).toBe(1);
    expect(budget.takeDropped()).toBe(0);
    now += 100; // one token back at 10 a second
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 10_000; // never more than the burst
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
  });

  it('says how long a flood has lasted, and forgets it after a quiet gap', () => {
    let now = 0;
    const budget = new EventBudget(1, 1, () => now);
    budget.take();
    expect(budget.floodingFor()).toBe(0);
    for (; now <= 3000; now += 100) budget.take();
    expect(budget.floodingFor()).toBeGreaterThanOrEqual(2900);
    now += FLOOD_GAP_MS + 1;
    expect(budget.floodingFor()).toBe(0);
  });
});
