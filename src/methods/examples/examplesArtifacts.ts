// Examples of page.pdf and trace.* for openrpc.json, from the exchanges docs/behaviour.md shows
// ("PDFs and traces"; base64 shortened; session id the same for every example).
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_ORIGIN as O, EXAMPLE_SESSION as S } from './exampleValues.js';

export const artifactsExamples: Record<string, MethodExample[]> = {
  'page.pdf': [
    {
      name: 'a page of three printed pages, A4 (docs/behaviour.md; the base64 shortened)',
      params: { session_id: S, format: 'A4', printBackground: true },
      result: { base64: 'JVBERi0xLjQKJdPr6eEK…', bytes: 16203, pages: 3 },
    },
  ],
  'trace.start': [
    {
      name: 'with screenshots and DOM snapshots (docs/behaviour.md)',
      params: { session_id: S, title: 'checkout' },
      result: { ok: true },
    },
  ],
  'trace.stop': [
    {
      name: 'a small trace, inline (docs/behaviour.md; the base64 shortened)',
      params: { session_id: S },
      result: { trace_id: 't1', bytes: 6452, base64: 'UEsDBBQAAAgIAAAAIQ…' },
    },
    {
      name: 'a trace over MAX_TRACE_INLINE_BYTES, for trace.get',
      params: { session_id: S },
      result: { trace_id: 't2', bytes: 7340211 },
    },
  ],
  'trace.get': [
    {
      name: 'the first 5 MiB of a kept trace (the base64 shortened)',
      params: { session_id: S, trace_id: 't2' },
      result: {
        base64: 'UEsDBBQAAAgIAAAAIQ…',
        bytes: 5242880,
        offset: 0,
        size: 7340211,
        nextOffset: 5242880,
        mime: 'application/zip',
      },
    },
  ],
  'session.export': [
    {
      name: 'a fill, a click and the text read, as a test (docs/behaviour.md#export-as-a-playwright-test)',
      params: { session_id: S },
      result: {
        filename: 'agent-session.spec.ts',
        code: `import { test, expect } from '@playwright/test';\n\n// Exported by playwright-jsonrpc session.export: 4 step(s) an agent took.\ntest('what the agent did', async ({ page }) => {\n  await page.goto('${O}/snapshot');\n  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grace');\n  await page.getByRole('button', { name: 'Greet', exact: true }).click();\n  await expect(page.locator('#out')).toHaveText('hello Grace');\n  await expect(page).toHaveURL('${O}/snapshot');\n});\n`,
        steps: 4,
        env: [],
      },
    },
  ],
  'replay.picture': [
    {
      name: 'the picture after an action of a session with replay on (the base64 shortened)',
      params: { session_id: S, seq: 12 },
      result: { seq: 12, mime: 'image/jpeg', base64: '/9j/4AAQSkZJRgABAQAAAQABAAD…', bytes: 48211 },
    },
  ],
  'replay.trace': [
    {
      name: "a session's timeline as a Playwright trace (the base64 shortened)",
      params: { session_id: S },
      result: {
        filename: `session-${S}.trace.zip`,
        mime: 'application/zip',
        base64: 'UEsDBBQAAAAIAAAAIQD…',
        bytes: 96342,
        actions: 6,
        pictures: 4,
        requests: 9,
        dropped: 0,
      },
    },
  ],
  'replay.video': [
    {
      name: "a session's replay pictures as a video, on a service with ffmpeg (the base64 shortened)",
      params: { session_id: S },
      result: {
        filename: `session-${S}.webm`,
        mime: 'video/webm',
        base64: 'GkXfo59ChoEBQveBAULygQRC84EIQoKEd2VibUKHgQJChYECGFOAZwEAAAAAA…',
        bytes: 84210,
        frames: 5,
        durationMs: 6500,
      },
    },
  ],
  'performance.start': [
    {
      name: 'the insights of a load (docs/behaviour.md#performance-insights)',
      params: { session_id: S, url: `${O}/artifacts/perf` },
      result: {
        recording: false,
        trace_id: 't1',
        bytes: 539847,
        url: `${O}/artifacts/perf`,
        durationMs: 1671,
        stoppedBy: 'call',
        metrics: {
          ttfbMs: 7,
          fcpMs: 372,
          lcpMs: 372,
          lcpElement: 'img',
          cls: 0.065,
          inpMs: null,
          domContentLoadedMs: 479,
          loadMs: 480,
          interactions: 0,
        },
        longTasks: { count: 1, totalMs: 123, blockingMs: 73, longest: [{ startMs: 595, durationMs: 123 }] },
        renderBlocking: [{ url: `${O}/artifacts/slow.css`, durationMs: 315 }],
        largestRequests: [{ url: `${O}/artifacts/figure?n=1`, bytes: 786786, durationMs: 33, type: 'img' }],
        notes: [
          'No interaction was timed: inpMs needs a click, tap or key press on the page while recording.',
        ],
      },
    },
    {
      name: 'record an interaction: act, then performance.stop',
      params: { session_id: S },
      result: { recording: true },
    },
  ],
  'performance.stop': [
    {
      name: 'the insights of a click recorded since performance.start',
      params: { session_id: S },
      result: {
        trace_id: 't2',
        bytes: 412230,
        url: `${O}/artifacts/perf`,
        durationMs: 2210,
        stoppedBy: 'call',
        metrics: {
          ttfbMs: 6,
          fcpMs: 360,
          lcpMs: 360,
          lcpElement: 'img',
          cls: 0.065,
          inpMs: 128,
          domContentLoadedMs: 470,
          loadMs: 471,
          interactions: 1,
        },
        longTasks: { count: 1, totalMs: 121, blockingMs: 71, longest: [{ startMs: 880, durationMs: 121 }] },
        renderBlocking: [{ url: `${O}/artifacts/slow.css`, durationMs: 308 }],
        largestRequests: [{ url: `${O}/artifacts/figure?n=1`, bytes: 786786, durationMs: 30, type: 'img' }],
        notes: [],
      },
    },
  ],
};
