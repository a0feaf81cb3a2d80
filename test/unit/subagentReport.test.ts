// The seed's subagent report (client/agent/subagentReport.ts): its text excerpt stays within 2 KB
// of UTF-8 without splitting a character, and each field comes from the answer it names.
import { describe, expect, it } from 'vitest';
import { buildReport, excerpt, TEXT_EXCERPT_MAX_BYTES } from '../../client/agent/subagentReport.js';

const noLogs = { console: [], pageErrors: [], dropped: { console: 0, pageErrors: 0 } };
const noRequests = { requests: [], dropped: 0 };
const at = '2026-11-24T00:00:00.000Z';

describe('subagentReport', () => {
  it('cuts the excerpt at 2048 UTF-8 bytes, never inside a character', () => {
    expect(excerpt('short')).toBe('short');
    const ascii = 'a'.repeat(5000);
    expect(excerpt(ascii)).toBe('a'.repeat(TEXT_EXCERPT_MAX_BYTES));
    // 'é' is 2 bytes: 1024 of them fill the 2048. '😀' is 4 (two UTF-16 units): after 'a', 511 fit
    // (2045 bytes) and the 512th, which would pass 2048, is left out whole.
    const accents = 'é'.repeat(1500);
    expect(excerpt(accents)).toBe('é'.repeat(1024));
    const emoji = `a${'😀'.repeat(600)}`;
    const cut = excerpt(emoji);
    expect(Buffer.byteLength(cut, 'utf8')).toBe(1 + 4 * 511);
    expect(cut.endsWith('😀')).toBe(true);
  });

  it('takes console errors from logs.pull and failed requests from network.pull', () => {
    const report = buildReport({
      url: 'http://localhost:8080/projects',
      actions: ['opened /projects', 'clicked "New Project"'],
      text: 'Projects',
      logs: {
        console: [
          { seq: 1, type: 'log', text: 'loaded', timestamp: at },
          {
            seq: 2,
            type: 'error',
            text: 'demo console error',
            location: 'http://localhost:8080/projects:3:9',
            timestamp: at,
          },
        ],
        pageErrors: [{ seq: 3, message: 'boom', timestamp: at }],
        dropped: { console: 0, pageErrors: 0 },
      },
      network: {
        requests: [
          {
            seq: 4,
            id: 'r3',
            url: 'http://localhost:8080/api/fail',
            status: 500,
            method: 'GET',
            resourceType: 'fetch',
            timestamp: at,
          },
          {
            seq: 5,
            id: 'r4',
            url: 'http://localhost:8080/api/gone',
            status: null,
            method: 'GET',
            resourceType: 'xhr',
            failure: 'net::ERR_CONNECTION_REFUSED',
            timestamp: at,
          },
        ],
        dropped: 0,
      },
    });
    expect(report).toEqual({
      url: 'http://localhost:8080/projects',
      action_taken: 'opened /projects; clicked "New Project"',
      text_excerpt: 'Projects',
      console_errors: ['demo console error (http://localhost:8080/projects:3:9)', 'uncaught: boom'],
      network_errors: [
        { url: 'http://localhost:8080/api/fail', method: 'GET', status: 500 },
        {
          url: 'http://localhost:8080/api/gone',
          method: 'GET',
          status: null,
          failure: 'net::ERR_CONNECTION_REFUSED',
        },
      ],
      next_step:
        'Investigate GET http://localhost:8080/api/fail (HTTP 500) and whether the page handles that failure.',
    });
  });

  it('says what to do next: after a failure, on console errors alone, and when nothing failed', () => {
    const base = { url: 'http://x.test/', actions: ['a'], text: 't', network: noRequests };
    expect(buildReport({ ...base, logs: noLogs, failure: 'TIMEOUT' }).next_step).toContain('(TIMEOUT)');
    const logs = { ...noLogs, pageErrors: [{ seq: 1, message: 'x is undefined', timestamp: at }] };
    expect(buildReport({ ...base, logs }).next_step).toBe(
      'Look into the console errors, starting with: uncaught: x is undefined',
    );
    expect(buildReport({ ...base, logs: noLogs }).next_step).toBe('Nothing failed: carry on with the task.');
  });
});
