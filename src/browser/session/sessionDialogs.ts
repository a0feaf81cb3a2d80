import type { Dialog as PlaywrightDialog } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';
import type { SessionEvents } from '../events/sessionEvents.js';

/** A dialog message longer than this is cut in the event log, the console line and the answers. */
export const MAX_DIALOG_MESSAGE_CHARS = 1_000;
/** How long a manual-mode dialog waits for dialog.handle before the policy answers it. */
export const DIALOG_PENDING_TIMEOUT_MS = {
  /** Until a policy sets it. */
  default: 30_000,
  /** The shortest a policy may set: shorter is auto mode. */
  min: 100,
  /** The longest: a frozen page holds a call and the session's lock. */
  max: 120_000,
} as const;
/**
 * How long a call may go on while a dialog is pending on its page before it answers DIALOG_PENDING:
 * a call that does not need the page's main thread (logs, a title already known) ends well within it,
 * one that does (a click whose handler called confirm()) cannot end until the dialog is answered.
 */
export const DIALOG_STALL_GRACE_MS = 300;

/** What Playwright's accept or dismiss fails with when the dialog is no longer there to answer. */
const DIALOG_GONE =
  /No dialog is showing|Target page, context or browser has been closed|Target closed|has been closed/i;

export type DialogAnswer = 'accept' | 'dismiss';

/** What the service uses of a Playwright dialog. */
export type Dialog = Pick<PlaywrightDialog, 'type' | 'message' | 'accept' | 'dismiss'>;

/** How the session answers dialogs. alert has one button: it is always accepted. */
export interface DialogPolicy {
  confirm: DialogAnswer;
  prompt: DialogAnswer;
  /** The text a prompt accepted by the policy answers with. */
  promptText: string;
  beforeunload: DialogAnswer;
  /** auto: answered at once by the rules above; manual: left pending for dialog.handle. */
  mode: 'auto' | 'manual';
  /** In manual mode, a dialog not handled within this is answered by the rules above. */
  pendingTimeoutMs: number;
}

/** Today's behaviour: alert and beforeunload accepted, confirm and prompt dismissed, at once. */
export const DEFAULT_DIALOG_POLICY: DialogPolicy = {
  confirm: 'dismiss',
  prompt: 'dismiss',
  promptText: '',
  beforeunload: 'accept',
  mode: 'auto',
  pendingTimeoutMs: DIALOG_PENDING_TIMEOUT_MS.default,
};

export interface DialogReport {
  type: string;
  message: string;
  page_id: string;
  /** accepted or dismissed (pending while it waits for dialog.handle). */
  outcome: 'accepted' | 'dismissed' | 'pending';
}

interface PendingDialog {
  dialog: Dialog;
  report: DialogReport;
  timer: NodeJS.Timeout;
}

export function clipMessage(message: string): string {
  return message.length > MAX_DIALOG_MESSAGE_CHARS
    ? `${message.slice(0, MAX_DIALOG_MESSAGE_CHARS)}… [${message.length - MAX_DIALOG_MESSAGE_CHARS} more chars]`
    : message;
}

/** dialog.handle for a dialog someone else closed first: nothing was answered. */
function closedElsewhereError(report: DialogReport): ServiceError {
  return new ServiceError(
    'INVALID_PARAMS',
    `The ${report.type} dialog ("${report.message.slice(0, 200)}") on page ${report.page_id} was closed outside the service (in the browser itself, or by another DevTools client) before dialog.handle: nothing was answered. How it was closed is in session events and logs.pull.`,
    {
      dialog: { type: report.type, message: report.message, page_id: report.page_id, closedElsewhere: true },
      errors: [{ path: '/', message: 'the dialog was closed elsewhere', keyword: 'pending', params: {} }],
    },
  );
}

/** A call cannot finish while a dialog is open on its page: it answers this, and the dialog waits. */
export class DialogPendingError extends ServiceError {
  constructor(report: DialogReport) {
    super(
      'DIALOG_PENDING',
      `A ${report.type} dialog ("${report.message.slice(0, 200)}") is open on page ${report.page_id} and waits for dialog.handle: answer it with dialog.handle {accept: true|false}. The call that opened it goes on once it is answered; until then other calls on this session answer DIALOG_PENDING.`,
      { dialog: { type: report.type, message: report.message, page_id: report.page_id } },
    );
  }
}

/**
 * The dialogs of a session's pages: answered by the session's policy, or, in manual mode, kept
 * pending (one per page, as the browser allows) until dialog.handle or the policy's timeout. Each is
 * a console line and an event.
 */
export class SessionDialogs {
  private policy: DialogPolicy = DEFAULT_DIALOG_POLICY;
  private readonly pending = new Map<string, PendingDialog>();
  /** Per page, the last pending dialog someone else closed: dialog.handle says so instead of "none". */
  private readonly closedOutside = new Map<string, DialogReport>();
  /** Called each time a dialog becomes pending (a stalled call listens). */
  private readonly listeners = new Set<(pageId: string) => void>();

  constructor(
    private readonly events: SessionEvents,
    /** A line of the service's own in the session's console log. */
    private readonly note: (type: string, text: string) => void,
  ) {}

  get current(): DialogPolicy {
    return this.policy;
  }

  setPolicy(change: Partial<DialogPolicy>): DialogPolicy {
    this.policy = { ...this.policy, ...change };
    return this.policy;
  }

  /** A dialog opened on page `pageId`. */
  onDialog(dialog: Dialog, pageId: string): void {
    this.closedOutside.delete(pageId);
    const report: DialogReport = {
      type: dialog.type(),
      message: clipMessage(dialog.message()),
      page_id: pageId,
      outcome: 'pending',
    };
    if (this.policy.mode === 'auto' || this.pending.has(pageId)) {
      this.answer(dialog, report, this.byPolicy(report.type), '');
      return;
    }
    this.keepPending(dialog, report, pageId);
    this.record(report, 'pending: waiting for dialog.handle');
    for (const listener of this.listeners) listener(pageId);
  }

  /** Leaves `dialog` pending on `pageId` for dialog.handle, answered by the policy after its timeout. */
  private keepPending(dialog: Dialog, report: DialogReport, pageId: string): void {
    const timeoutMs = this.policy.pendingTimeoutMs;
    const timer = setTimeout(() => {
      if (this.pending.get(pageId)?.dialog !== dialog) return;
      this.pending.delete(pageId);
      this.answer(dialog, report, this.byPolicy(report.type), ` after ${timeoutMs} ms without dialog.handle`);
    }, timeoutMs);
    // A pending dialog must not keep the process alive at shutdown.
    timer.unref();
    this.pending.set(pageId, { dialog, report, timer });
  }

  /** The dialog pending on a page, if any. */
  pendingOn(pageId: string): DialogReport | undefined {
    return this.pending.get(pageId)?.report;
  }

  /**
   * Answers the dialog pending on `pageId`, or when none is given, the one on `preferred` (the active
   * page) or else the oldest one. No pending dialog → INVALID_PARAMS.
   */
  async handle(
    accept: boolean,
    promptText: string | undefined,
    pageId: string | undefined,
    preferred: string,
  ): Promise<DialogReport> {
    const id = pageId ?? (this.pending.has(preferred) ? preferred : this.pending.keys().next().value);
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || entry === undefined) {
      const open = [...this.pending.keys()];
      const gone = this.closedOutside.get(pageId ?? preferred);
      if (gone !== undefined) throw closedElsewhereError(gone);
      throw new ServiceError(
        'INVALID_PARAMS',
        pageId === undefined
          ? 'No dialog is pending in this session: dialog.handle answers a dialog left pending by dialog.setPolicy {policy: {mode: "manual"}}. Dialogs answered by the policy are in session events and logs.pull.'
          : `No dialog is pending on page ${pageId}${open.length > 0 ? `; pending on: ${open.join(', ')}` : ''}.`,
        {
          errors: [
            {
              path: pageId === undefined ? '/' : '/page_id',
              message: 'no pending dialog',
              keyword: 'pending',
              params: {},
            },
          ],
        },
      );
    }
    clearTimeout(entry.timer);
    this.pending.delete(id);
    let answered: boolean;
    try {
      answered = await this.send(entry.dialog, entry.report.type, accept ? 'accept' : 'dismiss', promptText);
    } catch (error) {
      // Not answered, and as far as anyone knows still open: it stays pending for another try.
      if (!this.pending.has(id)) this.keepPending(entry.dialog, entry.report, id);
      throw error;
    }
    if (!answered) {
      // Closed before this answer reached it (by someone else, or its page went): never "accepted".
      this.closedOutside.set(id, entry.report);
      this.note(
        'dialog',
        `${entry.report.type}: closed outside the service before dialog.handle answered it`,
      );
      throw closedElsewhereError(entry.report);
    }
    return this.answer(
      entry.dialog,
      entry.report,
      accept ? 'accept' : 'dismiss',
      ' by dialog.handle',
      promptText,
      false,
    );
  }

  /** A page closed: its pending dialog went with it. */
  dropPage(pageId: string): void {
    this.closedOutside.delete(pageId);
    const entry = this.pending.get(pageId);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.pending.delete(pageId);
  }

  /**
   * The dialog pending on `pageId` was closed by someone else (a person or another DevTools client
   * of a CDP_URL browser): it is no longer pending, dialog.handle has nothing to answer there, and
   * the page's next dialog waits for dialog.handle again. `accepted` is how it was closed.
   */
  closedElsewhere(pageId: string, accepted: boolean): void {
    const entry = this.pending.get(pageId);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.pending.delete(pageId);
    this.closedOutside.set(pageId, entry.report);
    this.record(
      { ...entry.report, outcome: accepted ? 'accepted' : 'dismissed' },
      `${accepted ? 'accepted' : 'dismissed'} outside the service`,
    );
  }

  /** Calls `listener` with the page id each time a dialog becomes pending; returns the unsubscribe. */
  onPending(listener: (pageId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private byPolicy(type: string): DialogAnswer {
    if (type === 'confirm') return this.policy.confirm;
    if (type === 'prompt') return this.policy.prompt;
    if (type === 'beforeunload') return this.policy.beforeunload;
    return 'accept';
  }

  /**
   * Records the answer and, unless it was sent already (`send` false), sends it to the browser. A
   * policy's answer may find the dialog gone (its page closed or navigated, or someone else closed
   * it): then `answered` notes it as not delivered.
   */
  private answer(
    dialog: Dialog,
    report: DialogReport,
    answer: DialogAnswer,
    how: string,
    promptText?: string,
    send = true,
  ): DialogReport {
    const text = promptText ?? this.policy.promptText;
    const done: DialogReport = { ...report, outcome: answer === 'accept' ? 'accepted' : 'dismissed' };
    const withText =
      answer === 'accept' && report.type === 'prompt' ? ` with ${JSON.stringify(clipMessage(text))}` : '';
    this.record(done, `${done.outcome}${withText}${how}`);
    if (send)
      void this.send(dialog, report.type, answer, text).then((answered) => {
        if (!answered)
          this.note(
            'dialog',
            `${report.type}: the ${done.outcome === 'accepted' ? 'accept' : 'dismiss'} above found the dialog already closed`,
          );
      });
    return done;
  }

  /**
   * Sends an answer to the browser: true when it answered the dialog, false when the dialog was no
   * longer open (Playwright: "No dialog is showing", or its page or browser went). Other errors throw.
   */
  private async send(
    dialog: Dialog,
    type: string,
    answer: DialogAnswer,
    promptText?: string,
  ): Promise<boolean> {
    const text = promptText ?? this.policy.promptText;
    try {
      await (answer === 'accept' ? dialog.accept(type === 'prompt' ? text : undefined) : dialog.dismiss());
      return true;
    } catch (error) {
      if (error instanceof Error && DIALOG_GONE.test(error.message)) return false;
      throw error;
    }
  }

  private record(report: DialogReport, what: string): void {
    const where = report.page_id === 'p1' ? '' : ` [${report.page_id}]`;
    this.note('dialog', `${report.type}: ${report.message} (${what})${where}`);
    this.events.push({
      kind: 'dialog',
      type: report.type,
      message: report.message,
      outcome: report.outcome,
      page_id: report.page_id,
    });
  }
}
