// Dialogs (issue 11): the session's dialog policy (session.create dialogs, dialog.setPolicy), manual
// mode with dialog.handle, the bounded wait that answers a forgotten dialog, and the record of each
// dialog (a console line and a session event), on the main page and on popups.
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError, waitFor } from '../helpers/testService.js';
import type { SessionEvent } from '../../src/browser/events/sessionEvents.js';
import { rpcFailure } from '../helpers/boundSession.js';

const suite = useServiceSuite();

type Params = Record<string, unknown>;
const DIALOG_PENDING = -32014;
const INVALID_PARAMS = -32602;

/** A new session (with a dialog policy when given) on a fixture page. */
async function open(path: string, dialogs?: Params) {
  const { service, fixture } = suite;
  const { session_id } = await service.call<{ session_id: string }>(
    'session.create',
    dialogs === undefined ? {} : { dialogs },
  );
  const call = <T = Params>(method: string, params: Params = {}) =>
    service.call<T>(method, { session_id, ...params });
  await call('page.goto', { url: `${fixture.url}${path}`, waitUntil: 'load' });
  return {
    session_id,
    call,
    fails: (method: string, params: Params, code: number) => rpcFailure(call(method, params), code),
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
    dialogEvents: () =>
      (service.running.services.sessions.get(session_id)?.events.since(0).events ?? []).filter(
        (e): e is Extract<SessionEvent, { kind: 'dialog' }> => e.kind === 'dialog',
      ),
    dialogLines: async () =>
      (await call<{ console: { type: string; text: string }[] }>('logs.pull')).console
        .filter((c) => c.type === 'dialog')
        .map((c) => c.text),
    close: () => service.call('session.close', { session_id }),
  };
}

describe('the default policy (as before: confirm and prompt dismissed, alert accepted)', () => {
  it('a confirm-protected delete keeps the row; the dialog is a console line and an event', async () => {
    const s = await open('/confirm-delete');
    await s.call('page.click', { selector: 'button[data-name="beta"]' });
    expect(await s.text('#out')).toBe('kept beta');
    expect(await s.text('#rows')).toContain('beta');
    expect(await s.dialogLines()).toEqual(['confirm: Delete beta? (dismissed)']);
    expect(s.dialogEvents()).toEqual([
      expect.objectContaining({
        kind: 'dialog',
        type: 'confirm',
        message: 'Delete beta?',
        outcome: 'dismissed',
        page_id: 'p1',
      }),
    ]);
    await s.close();
  });

  it('an alert is accepted and the page goes on', async () => {
    const s = await open('/alert-readout');
    await s.call('page.click', { selector: '#warn' });
    expect(await s.text('#out')).toBe('alert closed');
    expect(await s.dialogLines()).toEqual(['alert: Careful now (accepted)']);
    await s.close();
  });
});

describe('session.create dialogs and dialog.setPolicy', () => {
  it('confirm: accept at session.create deletes the row', async () => {
    const s = await open('/confirm-delete', { confirm: 'accept' });
    await s.call('page.click', { selector: 'button[data-name="beta"]' });
    expect(await s.text('#out')).toBe('deleted beta');
    expect(await s.text('#rows')).not.toContain('beta');
    expect(s.dialogEvents().map((e) => e.outcome)).toEqual(['accepted']);
    await s.close();
  });

  it('prompt: accept with a text writes the answer; dismiss answers null; the answer is the full policy', async () => {
    const s = await open('/prompt-readout');
    const set = await s.call('dialog.setPolicy', { policy: { prompt: 'accept', promptText: 'Ada' } });
    expect(set).toEqual({
      policy: {
        confirm: 'dismiss',
        prompt: 'accept',
        promptText: 'Ada',
        beforeunload: 'accept',
        mode: 'auto',
        pendingTimeoutMs: 30_000,
      },
    });
    await s.call('page.click', { selector: '#ask' });
    expect(await s.text('#out')).toBe('answer: "Ada"');
    await s.call('dialog.setPolicy', { policy: { prompt: 'dismiss' } });
    await s.call('page.click', { selector: '#ask' });
    expect(await s.text('#out')).toBe('answer: null');
    expect(await s.dialogLines()).toEqual([
      'prompt: Your name? (accepted with "Ada")',
      'prompt: Your name? (dismissed)',
    ]);
    await s.close();
  });

  it('bad policies are INVALID_PARAMS, at session.create and at dialog.setPolicy', async () => {
    await rpcFailure(suite.service.call('session.create', { dialogs: { confirm: 'maybe' } }), INVALID_PARAMS);
    await rpcFailure(suite.service.call('session.create', { dialogs: { unknown: true } }), INVALID_PARAMS);
    const s = await open('/alert-readout');
    await s.fails('dialog.setPolicy', { policy: { mode: 'sometimes' } }, INVALID_PARAMS);
    await s.fails('dialog.setPolicy', { policy: { pendingTimeoutMs: 5 } }, INVALID_PARAMS);
    await s.fails('dialog.setPolicy', { policy: { promptText: 'x'.repeat(10_001) } }, INVALID_PARAMS);
    await rpcFailure(suite.service.call('dialog.setPolicy', { session_id: 's_unknown', policy: {} }), -32010);
    await s.close();
  });
});

describe('manual mode and dialog.handle', () => {
  it('a real click on a confirm button answers DIALOG_PENDING; dialog.handle accepts and the click finishes', async () => {
    const s = await open('/confirm-delete', { mode: 'manual' });
    const pending = await s.fails('page.click', { selector: 'button[data-name="gamma"]' }, DIALOG_PENDING);
    expect(pending.data).toMatchObject({
      dialog: { type: 'confirm', message: 'Delete gamma?', page_id: 'p1' },
    });
    // Other calls on the session answer at once while the dialog waits.
    await s.fails('page.text', { selector: '#out' }, DIALOG_PENDING);
    const handled = await s.call('dialog.handle', { accept: true });
    expect(handled).toEqual({
      type: 'confirm',
      message: 'Delete gamma?',
      outcome: 'accepted',
      page_id: 'p1',
      stalled: 'finished',
    });
    expect(await s.text('#out')).toBe('deleted gamma');
    expect(s.dialogEvents().map((e) => e.outcome)).toEqual(['pending', 'accepted']);
    expect(await s.dialogLines()).toEqual(
      expect.arrayContaining([
        'confirm: Delete gamma? (pending: waiting for dialog.handle)',
        'confirm: Delete gamma? (accepted by dialog.handle)',
      ]),
    );
    await s.close();
  });

  it('dialog.handle dismisses, and answers a prompt with its text', async () => {
    const s = await open('/prompt-readout', { mode: 'manual' });
    await s.fails('page.click', { selector: '#ask' }, DIALOG_PENDING);
    expect(await s.call('dialog.handle', { accept: true, promptText: 'Grace' })).toMatchObject({
      type: 'prompt',
      outcome: 'accepted',
    });
    expect(await s.text('#out')).toBe('answer: "Grace"');
    await s.call('page.goto', { url: `${suite.fixture.url}/confirm-delete`, waitUntil: 'load' });
    await s.fails('page.click', { selector: 'button[data-name="alpha"]' }, DIALOG_PENDING);
    expect(await s.call('dialog.handle', { accept: false })).toMatchObject({
      outcome: 'dismissed',
      stalled: 'finished',
    });
    expect(await s.text('#out')).toBe('kept alpha');
    await s.close();
  });

  it('dialog.handle with no pending dialog is INVALID_PARAMS; so is a page without one', async () => {
    const s = await open('/confirm-delete', { mode: 'manual' });
    const none = await s.fails('dialog.handle', { accept: true }, INVALID_PARAMS);
    expect(none.message).toContain('No dialog is pending in this session');
    await s.fails('dialog.handle', { accept: true, page_id: 'p7' }, INVALID_PARAMS);
    await s.fails('dialog.handle', {}, INVALID_PARAMS);
    await s.close();
  });

  it('a dialog nobody handles is answered by the policy after pendingTimeoutMs; the stalled click then finishes', async () => {
    const s = await open('/confirm-delete', { mode: 'manual', pendingTimeoutMs: 500, confirm: 'accept' });
    await s.fails('page.click', { selector: 'button[data-name="alpha"]' }, DIALOG_PENDING);
    let out = '';
    await waitFor(
      async () => {
        out = await s.text('#out').catch((error: unknown) => {
          if (error instanceof RpcCallError && error.code === DIALOG_PENDING) return '';
          throw error;
        });
        return out !== '' && out !== 'nothing deleted';
      },
      15_000,
      'the policy to answer the dialog',
    );
    expect(out).toBe('deleted alpha');
    expect(await s.dialogLines()).toContain(
      'confirm: Delete alpha? (accepted after 500 ms without dialog.handle)',
    );
    await s.close();
  });

  it('a dialog a timer opened (no call stalled) is listed by pages.list and handled', async () => {
    const s = await open('/alert-later', { mode: 'manual' });
    let pages: { page_id: string; dialog?: { type: string; message: string } }[] = [];
    await waitFor(
      async () => {
        pages = (await s.call<{ pages: typeof pages }>('pages.list')).pages;
        return pages[0]?.dialog !== undefined;
      },
      10_000,
      'the alert to be pending',
    );
    expect(pages[0]?.dialog).toEqual({ type: 'alert', message: 'Timer alert' });
    expect(await s.call('dialog.handle', { accept: true })).toMatchObject({ type: 'alert', stalled: null });
    expect(await s.text('#out')).toBe('alert closed');
    await s.close();
  });
});

describe('beforeunload', () => {
  it('accepted by default: leaving a page that asks navigates, and the dialog is recorded', async () => {
    const s = await open('/leave-guard');
    // Chromium asks before unload only on a page the user interacted with.
    await s.call('page.click', { selector: '#touch' });
    await s.call('page.click', { selector: '#away' });
    await waitFor(
      async () => (await s.text('#from').catch(() => '')) === 'leave-guard',
      10_000,
      'the navigation',
    );
    const events = s.dialogEvents();
    expect(events).toEqual([
      expect.objectContaining({ type: 'beforeunload', outcome: 'accepted', page_id: 'p1' }),
    ]);
    await s.close();
  });

  it('dismissed by the policy: the page stays', async () => {
    const s = await open('/leave-guard', { beforeunload: 'dismiss' });
    await s.call('page.click', { selector: '#touch' });
    await s.call('page.click', { selector: '#away' });
    await waitFor(() => s.dialogEvents().length > 0, 10_000, 'the beforeunload dialog');
    expect(s.dialogEvents()).toEqual([
      expect.objectContaining({ type: 'beforeunload', outcome: 'dismissed' }),
    ]);
    expect(await s.text('#out')).toBe('touched');
    await s.close();
  });
});

describe('manual mode and navigation', () => {
  it('page.goto away from a page that asks before unload answers DIALOG_PENDING; dialog.handle lets it leave', async () => {
    const s = await open('/leave-guard', { mode: 'manual' });
    await s.call('page.click', { selector: '#touch' });
    const pending = await s.fails(
      'page.goto',
      { url: `${suite.fixture.url}/pages-target?from=leave-guard`, waitUntil: 'load' },
      DIALOG_PENDING,
    );
    expect(pending.data).toMatchObject({ dialog: { type: 'beforeunload', page_id: 'p1' } });
    expect(await s.call('dialog.handle', { accept: true })).toMatchObject({
      type: 'beforeunload',
      outcome: 'accepted',
      stalled: 'finished',
    });
    expect(await s.text('#from')).toBe('leave-guard');
    await s.close();
  });

  it('pages.close while a click on the popup is stalled answers DIALOG_PENDING; once answered, the popup closes', async () => {
    const s = await open('/opener', { mode: 'manual' });
    await s.call('page.click', { selector: '#open-confirm' });
    await waitFor(
      async () => (await s.call<{ pages: unknown[] }>('pages.list')).pages.length === 2,
      10_000,
      'the popup',
    );
    await s.call('pages.select', { page_id: 'p2' });
    await s.fails('page.click', { selector: 'button[data-name="beta"]' }, DIALOG_PENDING);
    // The stalled click holds the session: pages.close answers DIALOG_PENDING too, dialog.handle does not.
    await s.fails('pages.close', { page_id: 'p2' }, DIALOG_PENDING);
    await s.call('dialog.handle', { accept: false, page_id: 'p2' });
    expect(await s.call('pages.close', { page_id: 'p2' })).toEqual({ closed: 'p2', active: 'p1' });
    await s.fails('dialog.handle', { accept: true }, INVALID_PARAMS);
    expect(await s.text('#out')).toBe('opener ready');
    await s.close();
  });
});

describe('dialogs of popups', () => {
  it('a confirm on p2 follows the policy and names its page', async () => {
    const s = await open('/opener', { confirm: 'accept' });
    await s.call('page.click', { selector: '#open-confirm' });
    await waitFor(
      async () => (await s.call<{ pages: unknown[] }>('pages.list')).pages.length === 2,
      10_000,
      'the popup',
    );
    await s.call('pages.select', { page_id: 'p2' });
    await s.call('page.click', { selector: 'button[data-name="beta"]' });
    expect(await s.text('#out')).toBe('deleted beta');
    expect(s.dialogEvents()).toEqual([
      expect.objectContaining({ type: 'confirm', outcome: 'accepted', page_id: 'p2' }),
    ]);
    expect(await s.dialogLines()).toEqual(['confirm: Delete beta? (accepted) [p2]']);
    await s.close();
  });

  it('manual mode on a popup: the click on p2 stalls, dialog.handle by page_id answers it', async () => {
    const s = await open('/opener', { mode: 'manual' });
    await s.call('page.click', { selector: '#open-confirm' });
    await waitFor(
      async () => (await s.call<{ pages: unknown[] }>('pages.list')).pages.length === 2,
      10_000,
      'the popup',
    );
    await s.call('pages.select', { page_id: 'p2' });
    await s.fails('page.click', { selector: 'button[data-name="beta"]' }, DIALOG_PENDING);
    await s.fails('dialog.handle', { accept: true, page_id: 'p1' }, INVALID_PARAMS);
    expect(await s.call('dialog.handle', { accept: true, page_id: 'p2' })).toMatchObject({
      page_id: 'p2',
      outcome: 'accepted',
      stalled: 'finished',
    });
    expect(await s.text('#out')).toBe('deleted beta');
    await s.close();
  });
});
