// page.snapshot (issue 10, first step): the page as an agent reads it, with refs, states, values,
// link targets and iframes, in pages of maxChars that a cursor continues.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError } from '../helpers/testService.js';

const suite = useServiceSuite();

interface Snapshot {
  snapshot: string;
  revision: number;
  cursor: string | null;
  length: number;
  approxTokens: number;
  url: string;
}

async function open(): Promise<string> {
  const { service, fixture } = suite;
  const { session_id } = await service.call<{ session_id: string }>('session.create', {});
  await service.call('page.goto', { session_id, url: `${fixture.url}/snapshot`, waitUntil: 'load' });
  return session_id;
}

describe('page.snapshot', () => {
  it('shows roles, names, states, input values, link targets and the iframe, with refs', async () => {
    const s = await open();
    const snap = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 100_000 });
    expect(snap.cursor).toBeNull();
    expect(snap.length).toBe(snap.snapshot.length);
    expect(snap.approxTokens).toBe(Math.ceil(snap.snapshot.length / 4));
    expect(snap.snapshot).toMatch(/heading "Account" \[level=1\] \[ref=e\d+\]/);
    expect(snap.snapshot).toMatch(/textbox "Name" \[ref=e\d+\]: Ada/);
    expect(snap.snapshot).toMatch(/option "Team" \[selected\]/);
    expect(snap.snapshot).toMatch(/checkbox "Terms" \[checked\]/);
    expect(snap.snapshot).toMatch(/button "Save" \[disabled\]/);
    expect(snap.snapshot).toContain('/url: /projects');
    expect(snap.snapshot).toMatch(/button "Inside the frame" \[ref=f\d+e\d+\]/);
    await suite.service.call('session.close', { session_id: s });
  });

  it('answers in pages of maxChars that a cursor continues to the whole snapshot', async () => {
    const s = await open();
    const first = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 1000 });
    expect(first.snapshot.length).toBeLessThanOrEqual(1000);
    expect(first.snapshot.endsWith('\n')).toBe(true);
    expect(first.cursor).not.toBeNull();
    let text = first.snapshot;
    let cursor = first.cursor;
    for (let pages = 0; cursor !== null && pages < 100; pages++) {
      const next: Snapshot = await suite.service.call<Snapshot>('page.snapshot', {
        session_id: s,
        maxChars: 1000,
        cursor,
      });
      expect(next.revision).toBe(first.revision);
      text += next.snapshot;
      cursor = next.cursor;
    }
    expect(cursor).toBeNull();
    expect(text.length).toBe(first.length);
    expect(text).toContain('Item 299');
    const whole = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 500_000 });
    expect(whole.revision).toBe(first.revision + 1);
    expect(whole.snapshot).toBe(text);
    await suite.service.call('session.close', { session_id: s });
  });

  it('refuses a cursor of an older snapshot, and narrows to a selector', async () => {
    const s = await open();
    const first = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, maxChars: 500 });
    await suite.service.call<Snapshot>('page.snapshot', { session_id: s });
    const stale = await suite.service
      .call('page.snapshot', { session_id: s, cursor: first.cursor })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RpcCallError);
    expect((stale as RpcCallError).code).toBe(-32602);
    expect((stale as RpcCallError).message).toContain('take a new snapshot');
    const form = await suite.service.call<Snapshot>('page.snapshot', { session_id: s, selector: 'form' });
    expect(form.snapshot).toContain('textbox "Name"');
    expect(form.snapshot).not.toContain('Item 0');
    await suite.service.call('session.close', { session_id: s });
  });
});
