// page.dblclick at a person's pace: its two clicks are apart in time (an editor that checks the
// interval opens the node), and it still waits for an element that can be acted on.
import { afterEach, describe, expect, it } from 'vitest';
import { DOUBLE_CLICK_GAP_MS } from '../../src/browser/page/doubleClick.js';
import { rpcFailure } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const opened: string[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((session_id) => suite.service.call('session.close', { session_id })),
  );
});

async function open() {
  const session_id = await suite.open('/canvas-node');
  opened.push(session_id);
  const call = <T>(method: string, params: Record<string, unknown> = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  return {
    call,
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
  };
}

describe('page.dblclick is paced like a person', () => {
  it('an editor that checks the interval between the clicks opens the node', async () => {
    expect(DOUBLE_CLICK_GAP_MS).toBeGreaterThanOrEqual(10);
    const s = await open();
    expect(await s.call('page.dblclick', { selector: '#node' })).toEqual({ ok: true });
    expect(await s.text('#out')).toBe('editing');
  });

  it('still waits for an enabled element, and fails with TIMEOUT on a disabled one', async () => {
    const s = await open();
    const error = await rpcFailure(s.call('page.dblclick', { selector: '#off', timeout: 500 }), -32001);
    expect(error.message).toContain('page.dblclick');
    expect(await s.text('#out')).toBe('closed');
  });
});
