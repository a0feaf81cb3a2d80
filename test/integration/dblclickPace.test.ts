// page.dblclick at a person's pace: its two clicks are apart in time (an editor that checks the
// interval opens the node), and it still waits for an element that can be acted on.
import { describe, expect, it } from 'vitest';
import { DOUBLE_CLICK_GAP_MS } from '../../src/browser/page/doubleClick.js';
import { rpcFailure, useBoundSessions } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

const suite = useServiceSuite();

const open = useBoundSessions(suite);

describe('page.dblclick is paced like a person', () => {
  it('an editor that checks the interval between the clicks opens the node', async () => {
    expect(DOUBLE_CLICK_GAP_MS).toBeGreaterThanOrEqual(10);
    const s = await open('/canvas-node');
    expect(await s.call('page.dblclick', { selector: '#node' })).toEqual({ ok: true });
    expect(await s.text('#out')).toBe('editing');
  });

  it('still waits for an enabled element, and fails with TIMEOUT on a disabled one', async () => {
    const s = await open('/canvas-node');
    const error = await rpcFailure(s.call('page.dblclick', { selector: '#off', timeout: 500 }), -32001);
    expect(error.message).toContain('page.dblclick');
    expect(await s.text('#out')).toBe('closed');
  });
});
