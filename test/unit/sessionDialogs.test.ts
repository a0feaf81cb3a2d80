import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionEvents } from '../../src/browser/events/sessionEvents.js';
import {
  DEFAULT_DIALOG_POLICY,
  MAX_DIALOG_MESSAGE_CHARS,
  SessionDialogs,
  type Dialog,
} from '../../src/browser/session/sessionDialogs.js';

/** A dialog as Playwright hands it over, recording how it was answered. */
function dialog(type: string, message: string) {
  const answers: string[] = [];
  const d: Dialog = {
    type: () => type,
    message: () => message,
    accept: (text?: string) => {
      answers.push(`accept${text === undefined ? '' : `:${text}`}`);
      return Promise.resolve();
    },
    dismiss: () => {
      answers.push('dismiss');
      return Promise.resolve();
    },
  };
  return { d, answers };
}

function setUp() {
  const events = new SessionEvents();
  const lines: string[] = [];
  const dialogs = new SessionDialogs(events, (_type, text) => lines.push(text));
  const recorded = () =>
    events
      .since(0)
      .events.map((e) => (e.kind === 'dialog' ? `${e.type} ${e.outcome} ${e.page_id ?? ''}` : e.kind));
  return { dialogs, lines, recorded };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SessionDialogs', () => {
  it('answers by the default policy at once: alert and beforeunload accepted, confirm and prompt dismissed', () => {
    const { dialogs, lines, recorded } = setUp();
    const answered = ['alert', 'beforeunload', 'confirm', 'prompt'].map((type) => {
      const { d, answers } = dialog(type, `${type}?`);
      dialogs.onDialog(d, 'p1');
      return answers;
    });
    expect(answered).toEqual([['accept'], ['accept'], ['dismiss'], ['dismiss']]);
    expect(lines).toEqual([
      'alert: alert? (accepted)',
      'beforeunload: beforeunload? (accepted)',
      'confirm: confirm? (dismissed)',
      'prompt: prompt? (dismissed)',
    ]);
    expect(recorded()).toEqual([
      'alert accepted p1',
      'beforeunload accepted p1',
      'confirm dismissed p1',
      'prompt dismissed p1',
    ]);
  });

  it('a policy accepts a prompt with its text, and names a page other than p1', () => {
    const { dialogs, lines } = setUp();
    dialogs.setPolicy({ prompt: 'accept', promptText: 'Ada' });
    const { d, answers } = dialog('prompt', 'name?');
    dialogs.onDialog(d, 'p3');
    expect(answers).toEqual(['accept:Ada']);
    expect(lines).toEqual(['prompt: name? (accepted with "Ada") [p3]']);
    expect(dialogs.current).toEqual({ ...DEFAULT_DIALOG_POLICY, prompt: 'accept', promptText: 'Ada' });
  });

  it('manual mode keeps a dialog pending for handle, which answers it once', async () => {
    const { dialogs, recorded } = setUp();
    dialogs.setPolicy({ mode: 'manual' });
    const { d, answers } = dialog('confirm', 'sure?');
    const seen: string[] = [];
    const stop = dialogs.onPending((id) => seen.push(id));
    dialogs.onDialog(d, 'p2');
    stop();
    expect(answers).toEqual([]);
    expect(seen).toEqual(['p2']);
    expect(dialogs.pendingOn('p2')).toMatchObject({ type: 'confirm', message: 'sure?', outcome: 'pending' });
    await expect(dialogs.handle(true, undefined, 'p1', 'p1')).rejects.toThrow(
      /No dialog is pending on page p1; pending on: p2/,
    );
    // No page_id, none on the active page: the oldest pending one.
    expect(await dialogs.handle(true, undefined, undefined, 'p1')).toMatchObject({
      outcome: 'accepted',
      page_id: 'p2',
    });
    expect(answers).toEqual(['accept']);
    await expect(dialogs.handle(true, undefined, undefined, 'p1')).rejects.toThrow(
      /No dialog is pending in this session/,
    );
    expect(recorded()).toEqual(['confirm pending p2', 'confirm accepted p2']);
  });

  it('a pending dialog closed elsewhere: no longer pending, handle says so, the next dialog waits again', async () => {
    const { dialogs, lines, recorded } = setUp();
    dialogs.setPolicy({ mode: 'manual' });
    const first = dialog('confirm', 'sure?');
    dialogs.onDialog(first.d, 'p1');
    dialogs.closedElsewhere('p1', true);
    expect(dialogs.pendingOn('p1')).toBeUndefined();
    expect(lines.at(-1)).toBe('confirm: sure? (accepted outside the service)');
    await expect(dialogs.handle(true, undefined, undefined, 'p1')).rejects.toThrow(
      /was closed outside the service .* nothing was answered/,
    );
    expect(first.answers).toEqual([]);
    // A close of a dialog that is not pending (one the session answered) changes nothing.
    dialogs.closedElsewhere('p1', false);
    const second = dialog('alert', 'again');
    dialogs.onDialog(second.d, 'p1');
    expect(second.answers).toEqual([]);
    expect(dialogs.pendingOn('p1')).toMatchObject({ type: 'alert', outcome: 'pending' });
    expect(await dialogs.handle(true, undefined, undefined, 'p1')).toMatchObject({ outcome: 'accepted' });
    expect(recorded()).toEqual([
      'confirm pending p1',
      'confirm accepted p1',
      'alert pending p1',
      'alert accepted p1',
    ]);
  });

  it('handle never reports an answer the browser refused because the dialog was gone', async () => {
    const { dialogs, recorded } = setUp();
    dialogs.setPolicy({ mode: 'manual' });
    const gone: Dialog = {
      type: () => 'confirm',
      message: () => 'sure?',
      accept: () => Promise.reject(new Error('dialog.accept: No dialog is showing')),
      dismiss: () => Promise.reject(new Error('dialog.dismiss: No dialog is showing')),
    };
    dialogs.onDialog(gone, 'p1');
    await expect(dialogs.handle(true, undefined, undefined, 'p1')).rejects.toThrow(
      /closed outside the service/,
    );
    expect(recorded()).toEqual(['confirm pending p1']);
    // Another failure is not taken for a closed dialog.
    const broken: Dialog = { ...gone, accept: () => Promise.reject(new Error('protocol error')) };
    dialogs.onDialog(broken, 'p2');
    await expect(dialogs.handle(true, undefined, 'p2', 'p1')).rejects.toThrow('protocol error');
    expect(dialogs.pendingOn('p2')).toMatchObject({ type: 'confirm', outcome: 'pending' });
  });

  it('a pending dialog nobody handles is answered by the policy after pendingTimeoutMs', () => {
    vi.useFakeTimers();
    const { dialogs, lines } = setUp();
    dialogs.setPolicy({ mode: 'manual', pendingTimeoutMs: 1_000, confirm: 'accept' });
    const { d, answers } = dialog('confirm', 'sure?');
    dialogs.onDialog(d, 'p1');
    vi.advanceTimersByTime(999);
    expect(answers).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(answers).toEqual(['accept']);
    expect(dialogs.pendingOn('p1')).toBeUndefined();
    expect(lines.at(-1)).toBe('confirm: sure? (accepted after 1000 ms without dialog.handle)');
  });

  it('a closed page drops its pending dialog; a long message is cut', () => {
    vi.useFakeTimers();
    const { dialogs } = setUp();
    dialogs.setPolicy({ mode: 'manual' });
    const { d, answers } = dialog('alert', 'x'.repeat(MAX_DIALOG_MESSAGE_CHARS + 50));
    dialogs.onDialog(d, 'p2');
    expect(dialogs.pendingOn('p2')?.message).toBe(`${'x'.repeat(MAX_DIALOG_MESSAGE_CHARS)}… [50 more chars]`);
    dialogs.dropPage('p2');
    vi.runAllTimers();
    expect(answers).toEqual([]);
    expect(dialogs.pendingOn('p2')).toBeUndefined();
  });
});
