import { withDeadline } from '../../errors/deadline.js';
import {
  DIALOG_STALL_GRACE_MS,
  DialogPendingError,
  type DialogReport,
  type SessionDialogs,
} from './sessionDialogs.js';

/**
 * A call stalled by a dialog goes on once the dialog is answered and then ends within its own
 * timeout; past this much more the session's lock is released anyway.
 */
const STALLED_CALL_MAX_MS = 120_000;

/** What became of a call stalled by a dialog, once the dialog was answered. */
export type StalledOutcome = 'finished' | 'failed' | 'dialog' | 'running';

/**
 * The calls of a session that a dialog left for dialog.handle stalls. Playwright cannot finish an
 * action while a dialog it opened is open (the page's main thread waits in the dialog): such a call
 * answers DIALOG_PENDING at once and keeps the session's lock until the dialog is answered (by
 * dialog.handle, or by the policy after its pending timeout); calls made meanwhile answer
 * DIALOG_PENDING without queueing, and dialog.handle (outside the lock) reports how it ended.
 */
export class DialogStalls {
  private stalled: { pageId: string; done: Promise<StalledOutcome> } | undefined;

  constructor(
    private readonly dialogs: SessionDialogs,
    private readonly note: (type: string, text: string) => void,
  ) {}

  /** The error a new call gets while a call is stalled by a dialog still open. */
  refusal(): DialogPendingError | undefined {
    const open = this.stalled === undefined ? undefined : this.dialogs.pendingOn(this.stalled.pageId);
    return open === undefined ? undefined : new DialogPendingError(open);
  }

  /**
   * Runs a call on page `pageId` (under the session's lock): settles `answer` with its value, or with
   * DIALOG_PENDING when a dialog stays pending on that page past DIALOG_STALL_GRACE_MS while the call
   * runs; in that case it returns only once the stalled call has ended (bounded).
   */
  async run<T>(
    pageId: string,
    work: () => Promise<T>,
    answer: { resolve: (value: T) => void; reject: (error: Error) => void },
  ): Promise<void> {
    const done = work();
    const first = await this.race(done, pageId);
    if (first.dialog === undefined) {
      answer.resolve(first.value);
      return;
    }
    answer.reject(new DialogPendingError(first.dialog));
    await this.hold(pageId, done);
  }

  /**
   * After dialog.handle answered the dialog of `pageId`: waits up to timeoutMs for the call it had
   * stalled (if any) to end or to stop at another dialog.
   */
  async afterAnswer(pageId: string, timeoutMs: number): Promise<StalledOutcome | null> {
    const stalled = this.stalled;
    if (stalled === undefined || stalled.pageId !== pageId) return null;
    let timer: NodeJS.Timeout | undefined;
    let stop = () => {};
    const next = new Promise<StalledOutcome>((resolve) => {
      timer = setTimeout(() => resolve('running'), timeoutMs);
      stop = this.dialogs.onPending((id) => {
        if (id === pageId) resolve('dialog');
      });
    });
    try {
      return await Promise.race([stalled.done, next]);
    } finally {
      stop();
      clearTimeout(timer);
    }
  }

  /** The work's value, or the dialog that has been pending on its page for DIALOG_STALL_GRACE_MS. */
  private async race<T>(
    done: Promise<T>,
    pageId: string,
  ): Promise<{ value: T; dialog?: undefined } | { value?: undefined; dialog: DialogReport }> {
    let timer: NodeJS.Timeout | undefined;
    let stop = () => {};
    const stall = new Promise<DialogReport>((resolve) => {
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          const report = this.dialogs.pendingOn(pageId);
          if (report !== undefined) resolve(report);
        }, DIALOG_STALL_GRACE_MS);
      };
      stop = this.dialogs.onPending((id) => {
        if (id === pageId) arm();
      });
      if (this.dialogs.pendingOn(pageId) !== undefined) arm();
    });
    try {
      return await Promise.race([done.then((value) => ({ value })), stall.then((dialog) => ({ dialog }))]);
    } finally {
      stop();
      clearTimeout(timer);
    }
  }

  /** Holds the lock until a call stalled by a dialog ends (bounded), noting how it ended. */
  private async hold(pageId: string, done: Promise<unknown>): Promise<void> {
    const outcome = withDeadline(done, STALLED_CALL_MAX_MS, () => new Error('still running')).then(
      (): StalledOutcome => {
        this.note('dialog', 'the call the dialog stalled went on and finished');
        return 'finished';
      },
      (error: unknown): StalledOutcome => {
        this.note('dialog', `the call the dialog stalled went on and failed: ${String(error).slice(0, 300)}`);
        return 'failed';
      },
    );
    this.stalled = { pageId, done: outcome };
    try {
      await outcome;
    } finally {
      this.stalled = undefined;
    }
  }
}
