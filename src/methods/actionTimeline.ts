// The action timeline: every call on a session, from every transport (they all reach it through
// defineSessionMethod), becomes an `action` entry of the session's event log, beside the page's own
// console and network entries. What a person watching the session (the console) or replaying it
// needs: the method, its params with typed text and secrets masked, how long it took, its outcome or
// error code, and the facts of its report (navigated, the URL, dialogs, downloads, new pages).
import type { Session } from '../browser/session/session.js';
import type { ServiceError } from '../errors/serviceError.js';
import { redactSecrets } from './session/sessionSecrets.js';

/** The params of an action entry, as JSON, are cut here. */
export const MAX_ACTION_PARAMS_CHARS = 1_000;
/** An action's error message is cut here (the caller got it whole). */
export const MAX_ACTION_ERROR_CHARS = 300;
/** The snapshot line naming a ref target is cut here. */
export const MAX_ACTION_TARGET_CHARS = 160;

/**
 * Params whose strings are what a person typed or what must not be shown: their text is replaced by
 * its length (`<6 chars>`). A secret typed by name keeps its name (`secret: "PASSWORD"`).
 */
const MASKED_KEYS = new Set([
  'value',
  'text',
  'promptText',
  'secrets',
  'cookies',
  'storageState',
  'headers',
  'base64',
  'data',
  'items',
]);

/** A caller's params with the masked keys' strings replaced by their length, and no session_id. */
export function maskParams(params: Record<string, unknown>): Record<string, unknown> {
  const mask = (v: unknown): unknown => {
    if (typeof v === 'string') return `<${v.length} chars>`;
    if (Array.isArray(v)) return v.map(mask);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, mask(item)]));
    return v;
  };
  const walk = (v: unknown, key?: string): unknown => {
    if (key !== undefined && MASKED_KEYS.has(key)) return mask(v);
    if (typeof v === 'string' && key === 'url') return withoutPassword(v);
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, k)]));
    return v;
  };
  const { session_id: _session, ...rest } = params;
  return walk(rest) as Record<string, unknown>;
}

/** The password of a URL's userinfo, in a text (user:password@). */
export const URL_PASSWORD = /(\/\/[^\s/:@]+:)[^\s/@]+@/g;

/** A URL with its userinfo password replaced (a page.goto to https://user:pass@host/). */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.href;
  } catch {
    // Not a URL the caller could have navigated to: shown as it was given.
    return url;
  }
}

/** The snapshot line of a ref in the session's newest snapshot (role and name), cut. */
function refTarget(session: Session, ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const text = session.snapshots.latest()?.text;
  if (text === undefined) return undefined;
  const at = text.indexOf(`[ref=${ref}]`);
  if (at === -1) return undefined;
  const start = text.lastIndexOf('\n', at) + 1;
  const line = text.slice(start, at).trim().replace(/^- /, '').trim();
  return line.slice(0, MAX_ACTION_TARGET_CHARS);
}

const count = (v: unknown): number | undefined => (Array.isArray(v) ? v.length : undefined);

/** What an action's answer reports, as entry fields (absent when the answer has none). */
function facts(result: unknown): Record<string, string | number | boolean | undefined> {
  if (result === null || typeof result !== 'object') return {};
  const r = result as Record<string, unknown>;
  return {
    navigated: r.navigated === true ? true : undefined,
    url: typeof r.url === 'string' ? withoutPassword(r.url) : undefined,
    dialogs: count(r.dialogs),
    downloads: count(r.downloads),
    pages: count(r.pages),
  };
}

/**
 * Calls that read the session's own log (or subscribe to it) are not actions: a reader polling it
 * would otherwise fill the log it reads with its own reads.
 */
const LOG_READERS = new Set(['logs.pull', 'network.pull', 'session.subscribe', 'session.unsubscribe']);

/**
 * Records one call of `method` on `session` as an action entry, its error as the caller gets it
 * (mapped). `targets` are its refs' snapshot lines as they were when the call began (the call may
 * take a new snapshot). A successful one is also kept for session.export. Answers the entry's seq
 * (0 when none was recorded).
 */
export function recordAction(
  session: Session,
  method: string,
  params: Record<string, unknown>,
  startedAt: number,
  targets: Record<string, string>,
  outcome: { result: unknown; picture?: boolean } | { failure: ServiceError },
): number {
  if (LOG_READERS.has(method)) return 0;
  const target = typeof params.ref === 'string' ? targets[params.ref] : undefined;
  const json = JSON.stringify(maskParams(params));
  const base = {
    kind: 'action' as const,
    method,
    params: json.length > MAX_ACTION_PARAMS_CHARS ? `${json.slice(0, MAX_ACTION_PARAMS_CHARS)}…` : json,
    target,
    selector: typeof params.selector === 'string' ? params.selector : undefined,
    page_id: session.activeId,
    durationMs: Math.round(performance.now() - startedAt),
  };
  if ('failure' in outcome) {
    const { failure } = outcome;
    return session.log.record({
      ...base,
      ok: false,
      code: failure.code,
      // A refused URL is named in its error: its password is not.
      // … and a typed secret the page echoed is its name, as in every answer.
      error: redactSecrets(session, failure.message.replace(URL_PASSWORD, '$1***@')).slice(
        0,
        MAX_ACTION_ERROR_CHARS,
      ),
    });
  }
  const seq = session.log.record({
    ...base,
    ok: true,
    ...facts(outcome.result),
    picture: outcome.picture === true ? true : undefined,
  });
  scriptCall(session, method, params, targets, outcome.result);
  return seq;
}

/** The calls session.export turns into code, the only ones the script keeps. */
const SCRIPTED = new Set([
  'page.goto',
  'page.reload',
  'page.back',
  'page.forward',
  'page.click',
  'page.dblclick',
  'page.hover',
  'page.focus',
  'page.check',
  'page.uncheck',
  'page.fill',
  'page.type',
  'page.press',
  'page.select',
  'page.keyboard',
  'page.mouse',
  'page.waitFor',
  'page.text',
  'page.act',
]);
/** The script keeps a session's last this many successful calls. */
export const MAX_SCRIPT_STEPS = 500;
/** A call whose params hold a string longer than this is kept as a comment, not as code. */
export const MAX_SCRIPT_VALUE_CHARS = 10_000;
/** A page.text answer becomes an assertion only when it is this short (a whole page's text is no check). */
export const MAX_SCRIPT_TEXT_CHARS = 200;

/** One successful call as session.export needs it: unmasked, the refs' lines, what it read. */
export interface ScriptStep {
  method: string;
  params: Record<string, unknown>;
  /** Each ref of the params (page.act's steps too) → its snapshot line when the call began. */
  targets: Record<string, string>;
  /** page.text of an element: the text it answered, when short. */
  text?: string;
  /** The page URL after the call, when it answered one. */
  url?: string;
  /** page.act that stopped at a failed step: that step's index (it and the ones after did not run). */
  failedAt?: number;
  /** The secrets it typed, by name. */
  secrets: string[];
}

const scripts = new WeakMap<Session, ScriptStep[]>();

/** Every ref named in a call's params, page.act's steps included. */
function refsIn(params: unknown, out: string[] = []): string[] {
  if (Array.isArray(params)) for (const item of params) refsIn(item, out);
  else if (params !== null && typeof params === 'object')
    for (const [key, value] of Object.entries(params)) {
      if (key === 'ref' && typeof value === 'string') out.push(value);
      else refsIn(value, out);
    }
  return out;
}

function longest(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((max: number, v) => Math.max(max, longest(v)), 0);
  if (value !== null && typeof value === 'object')
    return Object.values(value).reduce((max: number, v) => Math.max(max, longest(v)), 0);
  return 0;
}

/** The targets of a call's refs, read before it runs. */
export function targetsOf(session: Session, params: Record<string, unknown>): Record<string, string> {
  const targets: Record<string, string> = {};
  for (const ref of refsIn(params)) {
    const line = refTarget(session, ref);
    if (line !== undefined) targets[ref] = line;
  }
  return targets;
}

/**
 * The page's URL after a call, when its answer says: its url, or for page.act the last url its
 * steps answered (a step answers one only when it changed; network.get's is a request's), a
 * page.goto step that landed where it asked counting as its own url.
 */
function urlAfter(
  method: string,
  params: Record<string, unknown>,
  answer: Record<string, unknown>,
): string | undefined {
  if (method !== 'page.act') return typeof answer.url === 'string' ? answer.url : undefined;
  const asked = Array.isArray(params.steps)
    ? (params.steps as { method?: unknown; params?: { url?: unknown } }[])
    : [];
  const done = Array.isArray(answer.steps) ? (answer.steps as { result?: { url?: unknown } }[]) : [];
  let url: string | undefined;
  done.forEach((step, i) => {
    if (step.result === undefined) return;
    const stepUrl = step.result.url;
    const askedUrl = asked[i]?.params?.url;
    if (typeof stepUrl === 'string' && asked[i]?.method !== 'network.get') url = stepUrl;
    // A page.goto step that landed where it asked leaves its url out of the answer.
    else if (asked[i]?.method === 'page.goto' && typeof askedUrl === 'string') url = askedUrl;
  });
  return url;
}

/** Keeps a successful call for session.export (only the kinds it exports, bounded). */
export function scriptCall(
  session: Session,
  method: string,
  params: Record<string, unknown>,
  targets: Record<string, string>,
  result: unknown,
): void {
  if (!SCRIPTED.has(method) || longest(params) > MAX_SCRIPT_VALUE_CHARS) return;
  const { session_id: _session, ...own } = params;
  const answer = result !== null && typeof result === 'object' ? (result as Record<string, unknown>) : {};
  const text =
    method === 'page.text' &&
    typeof answer.text === 'string' &&
    answer.text.length <= MAX_SCRIPT_TEXT_CHARS &&
    (typeof own.selector === 'string' || typeof own.ref === 'string')
      ? answer.text
      : undefined;
  const secrets = JSON.stringify(own).match(/"secret":"([A-Z][A-Z0-9_]*)"/g) ?? [];
  const url = urlAfter(method, own, answer);
  const steps = scripts.get(session) ?? [];
  steps.push({
    method,
    params: own,
    targets,
    ...(text === undefined ? {} : { text }),
    ...(url === undefined ? {} : { url }),
    ...(method === 'page.act' && typeof answer.failedAt === 'number' ? { failedAt: answer.failedAt } : {}),
    secrets: secrets.map((m) => m.slice('"secret":"'.length, -1)),
  });
  if (steps.length > MAX_SCRIPT_STEPS) steps.shift();
  scripts.set(session, steps);
}

/** The session's kept calls, oldest first. */
export function scriptOf(session: Session): readonly ScriptStep[] {
  return scripts.get(session) ?? [];
}
