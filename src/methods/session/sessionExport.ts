// session.export: what an agent did on a session, as a runnable Playwright test in TypeScript. Each
// call that succeeded becomes a line (page.click on a ref → page.getByRole('button', { name: 'Save' })
// .click()), a page.text the agent read becomes an assertion of that text, the last URL an
// assertion too, so what an agent explored becomes a CI test. Typed secrets are read from the
// environment, never written. The steps come from the action timeline's private record
// (methods/actionTimeline.ts), which keeps what the timeline masks: the export is the caller's own.
import { Type } from '@sinclair/typebox';
import { parseSnapshot } from '../../browser/page/snapshotLines.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { MAX_SCRIPT_STEPS, MAX_SCRIPT_TEXT_CHARS, scriptOf, type ScriptStep } from '../actionTimeline.js';

/** Escapes of the characters a single-quoted TypeScript string cannot hold as they are. */
const STRING_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A string as a single-quoted TypeScript literal (other control characters as \\uXXXX). */
export function q(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    out +=
      STRING_ESCAPES[c] ?? (code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : c);
  }
  return `'${out}'`;
}

/** A locator for a step's target: by role and name for a ref, the selector as given otherwise. */
function locatorOf(step: ScriptStep, params: Record<string, unknown>): string | undefined {
  const ref = params.ref;
  if (typeof ref === 'string') {
    const line = step.targets[ref];
    if (line === undefined) return undefined;
    const [parsed] = parseSnapshot(`- ${line}`);
    if (parsed === undefined || parsed.role === 'text') return undefined;
    const name = parsed.name;
    return name === undefined || name === ''
      ? `page.getByRole(${q(parsed.role)})`
      : `page.getByRole(${q(parsed.role)}, { name: ${q(name)}, exact: true })`;
  }
  return typeof params.selector === 'string' ? `page.locator(${q(params.selector)})` : undefined;
}

/** Methods that act on their target without a value, and the locator method each becomes. */
const TARGET_ACTIONS: Readonly<Record<string, string>> = {
  'page.click': 'click',
  'page.dblclick': 'dblclick',
  'page.hover': 'hover',
  'page.focus': 'focus',
  'page.check': 'check',
  'page.uncheck': 'uncheck',
};

/** The value a fill or type puts in: its text, or the secret's environment variable. */
function typed(params: Record<string, unknown>, field: 'value' | 'text'): string | undefined {
  if (typeof params.secret === 'string') return `process.env.${params.secret} ?? ''`;
  const value = params[field];
  return typeof value === 'string' ? q(value) : undefined;
}

/** How long the exported test waits after a click of page.click until for what it clicks for. */
const CLICK_UNTIL_LOOK_MS = 2_000;
/** How long the exported test clicks for, at most: within @playwright/test's default 30 s a test. */
const CLICK_UNTIL_EXPORT_TIMEOUT_MS = 25_000;

/** page.click until: click while what it waits for is not visible, each click given time to show it. */
function clickUntilLines(
  until: Record<string, unknown>,
  target: string | undefined,
  skip: (why: string) => string[],
): string[] {
  if (target === undefined) return skip('its target could not be named by role or selector');
  const wanted =
    typeof until.text === 'string'
      ? `page.getByText(${q(until.text)}).first()`
      : typeof until.selector === 'string'
        ? `page.locator(${q(until.selector)}).first()`
        : undefined;
  if (wanted === undefined) return skip('until names no text or selector');
  return [
    'await expect(async () => {',
    `  if (!(await ${wanted}.isVisible())) await ${target}.click();`,
    `  await expect(${wanted}).toBeVisible({ timeout: ${CLICK_UNTIL_LOOK_MS} });`,
    `}).toPass({ timeout: ${CLICK_UNTIL_EXPORT_TIMEOUT_MS} });`,
  ];
}

/** The lines of one call (its own params: a page.act step's), or a comment saying why it has none. */
function linesOf(step: ScriptStep, method: string, params: Record<string, unknown>): string[] {
  const skip = (why: string) => [`// ${method}: ${why}`];
  const target = locatorOf(step, params);
  const needTarget = (line: (l: string) => string): string[] =>
    target === undefined ? skip('its target could not be named by role or selector') : [line(target)];
  if (method === 'page.click' && typeof params.until === 'object' && params.until !== null)
    return clickUntilLines(params.until as Record<string, unknown>, target, skip);
  const act = TARGET_ACTIONS[method];
  if (act !== undefined) return needTarget((l) => `await ${l}.${act}();`);
  switch (method) {
    case 'page.goto':
      return typeof params.url === 'string' ? [`await page.goto(${q(params.url)});`] : skip('no url');
    case 'page.reload':
      return ['await page.reload();'];
    case 'page.back':
      return ['await page.goBack();'];
    case 'page.forward':
      return ['await page.goForward();'];
    case 'page.fill': {
      const value = typed(params, 'value');
      return value === undefined ? skip('no value') : needTarget((l) => `await ${l}.fill(${value});`);
    }
    case 'page.type': {
      const text = typed(params, 'text');
      if (text === undefined) return skip('no text');
      return target === undefined
        ? [`await page.keyboard.type(${text});`]
        : [`await ${target}.pressSequentially(${text});`];
    }
    case 'page.press':
      if (typeof params.key !== 'string') return skip('no key');
      return target === undefined
        ? [`await page.keyboard.press(${q(params.key)});`]
        : [`await ${target}.press(${q(params.key)});`];
    case 'page.select': {
      const pick = Array.isArray(params.values)
        ? JSON.stringify(params.values)
        : Array.isArray(params.labels)
          ? JSON.stringify((params.labels as unknown[]).map((label) => ({ label })))
          : Array.isArray(params.indexes)
            ? JSON.stringify((params.indexes as unknown[]).map((index) => ({ index })))
            : undefined;
      return pick === undefined ? skip('no options') : needTarget((l) => `await ${l}.selectOption(${pick});`);
    }
    case 'page.keyboard': {
      const { action, key, text } = params;
      if (action === 'press' && typeof key === 'string') return [`await page.keyboard.press(${q(key)});`];
      if (action === 'down' && typeof key === 'string') return [`await page.keyboard.down(${q(key)});`];
      if (action === 'up' && typeof key === 'string') return [`await page.keyboard.up(${q(key)});`];
      if (action === 'type' && typeof text === 'string') return [`await page.keyboard.type(${q(text)});`];
      if (action === 'insertText' && typeof text === 'string')
        return [`await page.keyboard.insertText(${q(text)});`];
      return skip('an action without its key or text');
    }
    case 'page.mouse': {
      const { action, x, y } = params;
      if (typeof x !== 'number' || typeof y !== 'number') return skip('no position');
      if (action === 'click') return [`await page.mouse.click(${x}, ${y});`];
      if (action === 'dblclick') return [`await page.mouse.dblclick(${x}, ${y});`];
      if (action === 'move') return [`await page.mouse.move(${x}, ${y});`];
      return skip(`mouse ${String(action)} is not exported`);
    }
    case 'page.waitFor':
      if (typeof params.text === 'string')
        return [`await expect(page.getByText(${q(params.text)}).first()).toBeVisible();`];
      if (typeof params.textGone === 'string')
        return [`await expect(page.getByText(${q(params.textGone)})).toHaveCount(0);`];
      return target === undefined ? [] : [`await ${target}.waitFor();`];
    case 'page.text':
      if (step.text === undefined || target === undefined) return [];
      return [`await expect(${target}).toHaveText(${q(step.text)});`];
    default:
      return [];
  }
}

/** The body of the test: each successful call's lines, page.act's steps expanded. */
function bodyOf(steps: readonly ScriptStep[]): { lines: string[]; exported: number } {
  const lines: string[] = [];
  let exported = 0;
  let lastUrl: string | undefined;
  for (const step of steps) {
    if (step.method === 'page.act' && Array.isArray(step.params.steps)) {
      const asked = step.params.steps as { method?: unknown; params?: unknown }[];
      // An act that failed: only the steps before the failed one ran.
      const ran = step.failedAt === undefined ? asked : asked.slice(0, step.failedAt);
      for (const inner of ran) {
        if (typeof inner.method !== 'string') continue;
        const params =
          typeof inner.params === 'object' && inner.params !== null
            ? (inner.params as Record<string, unknown>)
            : {};
        const added = linesOf(step, inner.method, params);
        lines.push(...added);
        if (added.some((l) => !l.startsWith('//'))) exported += 1;
      }
      if (step.failedAt !== undefined)
        lines.push(
          `// page.act: step ${step.failedAt + 1} failed, so it and the steps after it are left out`,
        );
    } else {
      const added = linesOf(step, step.method, step.params);
      lines.push(...added);
      if (added.some((l) => !l.startsWith('//'))) exported += 1;
    }
    if (step.url !== undefined) lastUrl = step.url;
  }
  if (lastUrl !== undefined) lines.push(`await expect(page).toHaveURL(${q(lastUrl)});`);
  return { lines, exported };
}

export const sessionExport = defineSessionMethod({
  name: 'session.export',
  summary:
    'Export what was done on this session as a runnable Playwright test (TypeScript): its actions with locators by role and name, what it read as assertions',
  description: `Every call of the session that succeeded, in order (the last ${MAX_SCRIPT_STEPS} kept), as @playwright/test code: page.goto, clicks, fills, typing, keys, selects, checks, the mouse, page.act's steps; a ref becomes page.getByRole(role, { name }), a selector page.locator(selector); a page.text of an element whose text was at most ${MAX_SCRIPT_TEXT_CHARS} characters becomes expect(…).toHaveText, a page.waitFor for text an expect(…).toBeVisible, and the last URL expect(page).toHaveURL. A typed secret is read from process.env.NAME. Calls that read or change the session itself (snapshots, cookies, network) add nothing. Save it as a .spec.ts and run it with npx playwright test.`,
  params: {
    title: Type.String({
      minLength: 1,
      maxLength: 200,
      default: 'what the agent did',
      description: "The test's title (default: what the agent did).",
    }),
  },
  result: Type.Object({
    filename: Type.String({ description: 'A file name for it: agent-session.spec.ts.' }),
    code: Type.String({ description: 'The test, TypeScript for @playwright/test.' }),
    steps: Type.Integer({ description: 'Calls that became code.' }),
    env: Type.Array(Type.String(), { description: 'Environment variables the test reads (typed secrets).' }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: true,
  handler(params, { session }) {
    const steps = scriptOf(session);
    const { lines, exported } = bodyOf(steps);
    const env = [...new Set(steps.flatMap((s) => s.secrets))].sort();
    const code = [
      "import { test, expect } from '@playwright/test';",
      '',
      `// Exported by playwright-jsonrpc session.export: ${exported} step(s) an agent took.`,
      ...(env.length > 0
        ? [`// Set ${env.join(', ')} in the environment: the agent typed them as secrets.`]
        : []),
      `test(${q(params.title)}, async ({ page }) => {`,
      ...lines.map((l) => `  ${l}`),
      '});',
      '',
    ].join('\n');
    return Promise.resolve({ filename: 'agent-session.spec.ts', code, steps: exported, env });
  },
});

export const sessionExportMethods = [sessionExport];
