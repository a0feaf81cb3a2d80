import { Type } from '@sinclair/typebox';
import { DEFAULT_DIALOG_POLICY, DIALOG_PENDING_TIMEOUT_MS } from '../../browser/session/sessionDialogs.js';
import { defineMethod, SessionIdSchema } from '../defineSessionMethod.js';
import { ACTION_TIMEOUT_MS, timeoutParam } from '../params.js';

/** A prompt answer longer than this is refused: it is typed into the page's prompt as one string. */
export const MAX_PROMPT_TEXT_CHARS = 10_000;

const Answer = (what: string, fallback: string) =>
  Type.Optional(
    Type.Union([Type.Literal('accept'), Type.Literal('dismiss')], {
      description: `How ${what} is answered (${fallback} until set).`,
    }),
  );

const PromptText = Type.String({
  maxLength: MAX_PROMPT_TEXT_CHARS,
  description: "The text an accepted prompt answers with; default the policy's promptText.",
});

/** The dialog policy: each property given changes that rule only. */
export const DialogPolicyParam = Type.Object(
  {
    confirm: Answer('confirm()', DEFAULT_DIALOG_POLICY.confirm),
    prompt: Answer('prompt()', DEFAULT_DIALOG_POLICY.prompt),
    promptText: Type.Optional(
      Type.String({
        maxLength: MAX_PROMPT_TEXT_CHARS,
        description: 'The text a prompt accepted by the policy is answered with ("" until set).',
      }),
    ),
    beforeunload: Answer('a beforeunload dialog (leave the page?)', DEFAULT_DIALOG_POLICY.beforeunload),
    mode: Type.Optional(
      Type.Union([Type.Literal('auto'), Type.Literal('manual')], {
        description:
          'auto (until set): every dialog is answered at once by the rules. manual: a dialog stays pending for dialog.handle; a call it stalls answers DIALOG_PENDING; unanswered after pendingTimeoutMs, the rules answer it. alert is always accepted by the rules.',
      }),
    ),
    pendingTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: DIALOG_PENDING_TIMEOUT_MS.min,
        maximum: DIALOG_PENDING_TIMEOUT_MS.max,
        description: `In manual mode, how long a dialog waits for dialog.handle before the rules answer it (${DEFAULT_DIALOG_POLICY.pendingTimeoutMs} until set).`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'How the session answers alert, confirm, prompt and beforeunload dialogs.',
  },
);

const Policy = Type.Object({
  confirm: Type.String(),
  prompt: Type.String(),
  promptText: Type.String(),
  beforeunload: Type.String(),
  mode: Type.String(),
  pendingTimeoutMs: Type.Integer(),
});

// Both run outside the session's lock: a call stalled by a dialog holds it until the dialog is answered.

export const dialogSetPolicy = defineMethod({
  name: 'dialog.setPolicy',
  summary: 'Change how the session answers dialogs (confirm, prompt, beforeunload; auto or manual)',
  description:
    'Only the properties given change. A dialog already pending stays pending; when its time runs out the policy then in force answers it.',
  params: { session_id: SessionIdSchema, policy: DialogPolicyParam },
  result: Type.Object({ policy: Policy }),
  errors: ['SESSION_NOT_FOUND'],
  readOnly: false,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal }) {
    const session = services.sessions.resolve(params.session_id, principal);
    session.lastUsedAt = Date.now();
    return { policy: { ...session.dialogs.setPolicy(params.policy) } };
  },
});

export const dialogHandle = defineMethod({
  name: 'dialog.handle',
  summary: 'Answer the dialog left pending for dialog.handle (dialog policy mode manual)',
  description:
    'Answers the dialog on page_id, or else the one on the active page, or else the oldest. Then waits up to timeout for the call the dialog stalled (if any) to end, and says how it ended. No pending dialog: INVALID_PARAMS.',
  params: {
    session_id: SessionIdSchema,
    accept: Type.Boolean({ description: 'true accepts (OK), false dismisses (Cancel).' }),
    promptText: Type.Optional(PromptText),
    page_id: Type.Optional(
      Type.String({ pattern: '^p[0-9]+$', maxLength: 12, description: 'The page whose dialog to answer.' }),
    ),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the call the dialog stalled to end'),
  },
  result: Type.Object({
    type: Type.String({ description: 'alert, confirm, prompt or beforeunload.' }),
    message: Type.String({ description: 'The dialog message (cut at 1000 characters).' }),
    outcome: Type.Union([Type.Literal('accepted'), Type.Literal('dismissed')]),
    page_id: Type.String(),
    stalled: Type.Union(
      [
        Type.Literal('finished'),
        Type.Literal('failed'),
        Type.Literal('dialog'),
        Type.Literal('running'),
        Type.Null(),
      ],
      {
        description:
          'The call the dialog had stalled: finished, failed (its error is in logs.pull), stopped at another dialog (dialog), still running after timeout; null when none was stalled.',
      },
    ),
  }),
  errors: ['SESSION_NOT_FOUND', 'INVALID_PARAMS'],
  readOnly: false,
  logFields: (params) => ({ sessionId: params.session_id }),
  async handler(params, { services, principal }) {
    const session = services.sessions.resolve(params.session_id, principal);
    const report = await session.handleDialog(
      params.accept,
      params.promptText,
      params.page_id,
      params.timeout,
    );
    return {
      type: report.type,
      message: report.message,
      outcome: report.outcome === 'accepted' ? ('accepted' as const) : ('dismissed' as const),
      page_id: report.page_id,
      stalled: report.stalled,
    };
  },
});

export const dialogMethods = [dialogSetPolicy, dialogHandle];
