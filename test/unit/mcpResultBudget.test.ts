// The MCP answer budget (src/mcp/resultBudget.ts): what is cut, what is kept, and what is reported.
import { describe, expect, it } from 'vitest';
import { fitToBudget, withBudgetDefaults } from '../../src/mcp/resultBudget.js';

const BUDGET = 2_000;
const size = (value: unknown): number => JSON.stringify(value).length;

describe('MCP result budget', () => {
  it('leaves an answer that fits, and the paging methods, as they are', () => {
    const small = { result: [1, 2, 3] };
    expect(fitToBudget('page.evaluate', small, BUDGET)).toEqual({ value: small, omitted: undefined });
    const paged = { text: 'x'.repeat(BUDGET * 3) };
    expect(fitToBudget('page.text', paged, BUDGET).value).toBe(paged);
  });

  it('cuts long strings first, marking each cut and counting the characters left out', () => {
    const html = 'a'.repeat(10_000);
    const { value, omitted } = fitToBudget('page.content', { html, truncated: false }, BUDGET);
    const cut = value as { html: string; truncated: boolean };
    expect(size(cut)).toBeLessThanOrEqual(BUDGET);
    expect(cut.truncated).toBe(false);
    const kept = /^(a+)… \[(\d+) more characters\]$/.exec(cut.html);
    expect(Number(kept?.[2])).toBe(10_000 - (kept?.[1]?.length ?? 0));
    expect(omitted).toMatchObject({ characters: Number(kept?.[2]), items: 0 });
    expect(omitted?.note).toMatch(/page_text/);
  });

  it('then drops list items and object entries, counting them', () => {
    const list = Array.from({ length: 1_000 }, (_, i) => `entry ${i}`);
    const { value, omitted } = fitToBudget('page.evaluate', { result: list }, BUDGET);
    const cut = value as { result: string[] };
    expect(size(cut)).toBeLessThanOrEqual(BUDGET);
    expect(cut.result).toEqual(list.slice(0, cut.result.length));
    expect(omitted).toMatchObject({ characters: 0, items: 1_000 - cut.result.length });
    const wide = Object.fromEntries(list.map((v, i) => [`k${i}`, v]));
    const keys = fitToBudget('page.evaluate', { result: wide }, BUDGET);
    expect(size(keys.value)).toBeLessThanOrEqual(BUDGET);
    expect(keys.omitted?.items).toBeGreaterThan(0);
  });

  it('keeps every field of the answer and of typed entries: arrays shrink before objects do', () => {
    const entry = (i: number) => ({ type: 'error', text: `message ${i}`, timestamp: '2026-01-01T00:00:00Z' });
    const logs = {
      console: Array.from({ length: 500 }, (_, i) => entry(i)),
      pageErrors: [],
      dropped: { console: 0 },
    };
    const { value, omitted } = fitToBudget('logs.pull', logs, BUDGET);
    const cut = value as typeof logs;
    expect(size(cut)).toBeLessThanOrEqual(BUDGET);
    expect(Object.keys(cut)).toEqual(['console', 'pageErrors', 'dropped']);
    expect(cut.console.length).toBeGreaterThan(0);
    expect(cut.console).toEqual(logs.console.slice(0, cut.console.length));
    expect(omitted?.items).toBe(500 - cut.console.length);
    expect(omitted?.note).toMatch(/drained/);
  });

  it('never ends a cut string on half of a surrogate pair', () => {
    const emoji = '😀'.repeat(5_000);
    const { value } = fitToBudget('page.evaluate', { result: emoji }, BUDGET);
    const text = (value as { result: string }).result.replace(/… \[\d+ more characters\]$/, '');
    expect(text.length % 2).toBe(0);
    expect(text).toBe('😀'.repeat(text.length / 2));
  });

  it('fills in the paging methods’ page size only when the caller chose none', () => {
    expect(withBudgetDefaults('page.text', { session_id: 's' })).toEqual({
      session_id: 's',
      maxChars: 20_000,
    });
    expect(withBudgetDefaults('page.text', { maxChars: 5 })).toEqual({ maxChars: 5 });
    // A file's slices are not text: downloads.get keeps its own default over MCP (binaryResults.ts).
    expect(withBudgetDefaults('downloads.get', {})).toEqual({});
    expect(withBudgetDefaults('page.goto', { url: 'u' })).toEqual({ url: 'u' });
  });
});
