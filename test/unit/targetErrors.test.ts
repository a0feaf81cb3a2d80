// The pure parts of what a failed action on a selector says (browser/page/targetErrors.ts): Playwright's
// suggested locators as selectors, the words of a selector, and the reason in a call log.
import { describe, expect, it } from 'vitest';
import {
  MAX_CALL_LOG_LINES,
  blockedReason,
  callLog,
  selectorOfLocator,
} from '../../src/browser/page/targetErrors.js';
import { selectorWords } from '../../src/browser/page/targetCandidates.js';

describe('selectorOfLocator', () => {
  it('turns the locators Playwright suggests for one element into selectors', () => {
    expect(selectorOfLocator("getByRole('button', { name: 'Save' })")).toBe('role=button[name="Save"]');
    expect(selectorOfLocator("getByRole('button', { name: 'B', exact: true })")).toBe(
      'role=button[name="B"s]',
    );
    expect(selectorOfLocator("getByRole('checkbox')")).toBe('role=checkbox');
    expect(selectorOfLocator("getByText('It\\'s here')")).toBe('internal:text="It\'s here"i');
    expect(selectorOfLocator("getByLabel('Email', { exact: true })")).toBe('internal:label="Email"s');
    expect(selectorOfLocator("getByPlaceholder('Search')")).toBe('internal:attr=[placeholder="Search"i]');
    expect(selectorOfLocator("getByTestId('go')")).toBe('internal:testid=[data-testid="go"s]');
    expect(selectorOfLocator("locator('#main')")).toBe('#main');
  });

  it('leaves chained and unknown forms to the nth fallback', () => {
    expect(selectorOfLocator("getByRole('button').first()")).toBeUndefined();
    expect(selectorOfLocator("locator('div').filter({ hasText: 'x' })")).toBeUndefined();
    expect(selectorOfLocator('')).toBeUndefined();
  });
});

describe('selectorWords', () => {
  it('keeps the words that may name an element, not the engines', () => {
    expect(selectorWords('#sumbit')).toEqual(['sumbit']);
    expect(selectorWords('text="Sav"')).toEqual(['sav']);
    expect(selectorWords('role=button[name="Log in"]')).toEqual(['button', 'log', 'in']);
    expect(selectorWords('.saveButton >> nth=2')).toEqual(['save', 'button']);
  });
});

const LOG =
  'locator.click: Timeout 500ms exceeded.\nCall log:\n' +
  [
    "  - waiting for locator('#d')",
    '    - locator resolved to <button id="d" disabled>Dis</button>',
    '  - attempting click action',
    '    2 × waiting for element to be visible, enabled and stable',
    '      - element is not enabled',
    '    - retrying click action',
    '    - waiting 20ms',
    '    - waiting for element to be visible, enabled and stable',
    '    - element is not enabled',
    '  - retrying click action',
    '    - waiting 500ms',
  ]
    .map((line) => `\u001b[2m${line}\u001b[22m`)
    .join('\n');

describe('blockedReason', () => {
  it('finds the newest reason, the element and the last distinct lines of the call log', () => {
    expect(callLog(LOG)[0]).toBe("waiting for locator('#d')");
    const blocked = blockedReason(LOG);
    expect(blocked?.reason).toBe('element is not enabled');
    expect(blocked?.element).toBe('<button id="d" disabled>Dis</button>');
    expect(blocked?.log.length).toBeLessThanOrEqual(MAX_CALL_LOG_LINES);
    expect(blocked?.log.at(-1)).toBe('element is not enabled');
  });

  it('is undefined for a call log that names no reason (a selector still waited for)', () => {
    expect(
      blockedReason("locator.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for locator('#x')\n"),
    ).toBeUndefined();
    expect(blockedReason('no log at all')).toBeUndefined();
  });
});
