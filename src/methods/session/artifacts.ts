// Artifacts of a session: page.pdf (capped at MAX_PDF_BYTES), and Playwright traces:
// trace.start / trace.stop (inline up to MAX_TRACE_INLINE_BYTES, otherwise kept and read with
// trace.get in slices, like downloads.get), within MAX_SESSION_TRACE_BYTES; every kept trace lives in
// the session's own directory and goes with it (browser/artifacts/traceStore.ts).
import { Type } from '@sinclair/typebox';
import { cdpSessionOf } from '../../browser/engine/browserBarrier.js';
import { PdfTooLargeError, printPdf } from '../../browser/artifacts/pdfStream.js';
import { tracesOf, type TraceDeps } from '../../browser/artifacts/traceStore.js';
import { DeadlineError, withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import type { Services } from '../services.js';
import { SliceParams, SliceResult, sliceAnswer } from './downloads.js';
import { timeoutParam } from '../params.js';
import { pdfPageCount } from './pdfPages.js';
import { ownContext } from './storage.js';

/** Printing a long page to PDF takes seconds; the default deadline of page.pdf. */
export const PDF_TIMEOUT_MS = 30_000;
/** A paper size or margin: a number of CSS pixels, or one with a unit (px, in, cm, mm). */
const LENGTH = '^(0|[1-9][0-9]{0,4})(\\.[0-9]{1,3})?(px|in|cm|mm)?$';

const Length = (what: string) =>
  Type.String({
    pattern: LENGTH,
    maxLength: 16,
    description: `${what}: 8.5in, 210mm, 2cm, 800px or 800 (px).`,
  });

const PdfFormat = Type.Union(
  ['Letter', 'Legal', 'Tabloid', 'Ledger', 'A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6'].map((f) =>
    Type.Literal(f),
  ),
  { description: 'Paper format (default Letter); give width and height instead for another size.' },
);

/** The limits of trace.*, from the configuration, and the browser's tracesDir. */
export function traceDeps(services: Services): TraceDeps {
  return {
    limits: {
      maxSessionBytes: services.config.maxSessionTraceBytes,
      maxFailureTraces: services.config.maxFailureTraces,
      maxSharedBytes: services.config.maxTraceSharedBytes,
    },
    tracesDir: services.browser.tracesDir,
  };
}

function invalid(path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params: ${path.slice(1)} ${message}`, {
    errors: [{ path, message, keyword: 'pdf', params: {} }],
  });
}

export const pagePdf = defineSessionMethod({
  name: 'page.pdf',
  summary: 'Print the active page to PDF (headless Chromium), with its page count',
  description:
    'Uses the print stylesheet (CSS @media print and page breaks). The PDF comes as base64; past MAX_PDF_BYTES the call fails with LIMIT_REACHED (print fewer pageRanges).',
  params: {
    format: Type.Optional(PdfFormat),
    width: Type.Optional(Length('Paper width')),
    height: Type.Optional(Length('Paper height')),
    landscape: Type.Boolean({ default: false, description: 'Landscape orientation (default false).' }),
    printBackground: Type.Boolean({
      default: false,
      description: 'Print background colours and images (default false).',
    }),
    scale: Type.Number({
      minimum: 0.1,
      maximum: 2,
      default: 1,
      description: 'Scale of the rendering, 0.1 to 2 (default 1).',
    }),
    pageRanges: Type.Optional(
      Type.String({
        pattern:
          '^\\s*[1-9][0-9]{0,5}(\\s*-\\s*[1-9][0-9]{0,5})?(\\s*,\\s*[1-9][0-9]{0,5}(\\s*-\\s*[1-9][0-9]{0,5})?)*\\s*$',
        maxLength: 200,
        description: 'Pages to print, 1-based: "1-3, 5". Default all.',
      }),
    ),
    margin: Type.Optional(
      Type.Object(
        {
          top: Type.Optional(Length('Top margin')),
          right: Type.Optional(Length('Right margin')),
          bottom: Type.Optional(Length('Bottom margin')),
          left: Type.Optional(Length('Left margin')),
        },
        { additionalProperties: false, description: 'Paper margins (default none).' },
      ),
    ),
    timeout: timeoutParam(PDF_TIMEOUT_MS, 'the PDF'),
  },
  result: Type.Object({
    base64: Type.String({ description: 'The PDF, base64-encoded.' }),
    bytes: Type.Integer({ description: 'Its size in bytes.' }),
    pages: Type.Integer({ description: 'Its number of pages.' }),
  }),
  errors: ['LIMIT_REACHED', 'TIMEOUT', 'INVALID_PARAMS', 'ACTION_FAILED'],
  readOnly: true,
  async handler(params, { session, services }) {
    if (params.format !== undefined && (params.width !== undefined || params.height !== undefined))
      throw invalid('/format', 'goes with neither width nor height: give a format, or a width and a height');
    if ((params.width === undefined) !== (params.height === undefined))
      throw invalid(params.width === undefined ? '/height' : '/width', 'needs the other of width and height');
    const { timeout, ...options } = params;
    const limit = services.config.maxPdfBytes;
    const tooLarge = (bytes: number, passed: boolean) =>
      new ServiceError(
        'LIMIT_REACHED',
        `The PDF ${passed ? 'passed' : 'is'} ${bytes} bytes, over MAX_PDF_BYTES (${limit}): print fewer pages (pageRanges) or without backgrounds.`,
        { limit: 'MAX_PDF_BYTES', max: limit, bytes },
      );
    // Read in slices over the page's CDP session, stopped past the cap; a tab whose browser refuses
    // CDP sessions is printed by Playwright whole.
    const cdp = await cdpSessionOf(session.page);
    let pdf: Buffer;
    try {
      pdf = await withDeadline(
        cdp === undefined ? session.page.pdf(options) : printPdf(cdp, options, limit),
        timeout,
        () => new DeadlineError('page.pdf', timeout, ': print less (pageRanges) or raise timeout'),
      );
    } catch (error) {
      if (error instanceof PdfTooLargeError) throw tooLarge(error.readBytes, true);
      // Chromium's own word for a range past the last page: the caller's to fix.
      if (error instanceof Error && /page range/i.test(error.message))
        throw invalid('/pageRanges', `is outside the document: ${error.message.split('\n')[0] ?? ''}`);
      throw error;
    }
    if (pdf.length > limit) throw tooLarge(pdf.length, false);
    return { base64: pdf.toString('base64'), bytes: pdf.length, pages: pdfPageCount(pdf) };
  },
});

export const traceStart = defineSessionMethod({
  name: 'trace.start',
  summary: 'Start recording a Playwright trace of the session (actions, DOM snapshots, screenshots, network)',
  description:
    'Until trace.stop. One trace at a time; refused on an attached tab and on a session created with traceOnFailure (its failed calls are traced already).',
  params: {
    screenshots: Type.Boolean({
      default: true,
      description: 'Record a screencast of the pages (default true).',
    }),
    snapshots: Type.Boolean({
      default: true,
      description: 'Record DOM snapshots before and after each action (default true).',
    }),
    title: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The trace's title in the trace viewer." }),
    ),
  },
  result: Type.Object({ ok: Type.Boolean({ description: 'True: the trace is recording.' }) }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, ctx) {
    ownContext(ctx.session, 'trace.start');
    await tracesOf(ctx.session, traceDeps(ctx.services)).start(params);
    return { ok: true };
  },
});

export const traceStop = defineSessionMethod({
  name: 'trace.stop',
  summary:
    'Stop the trace and keep it as a zip for the trace viewer: inline when small, else read with trace.get',
  description:
    'Open the zip with `npx playwright show-trace trace.zip` or at trace.playwright.dev. Up to MAX_TRACE_INLINE_BYTES it comes as base64; a larger one is kept until the session ends. Past MAX_SESSION_TRACE_BYTES for the session it is deleted and refused with LIMIT_REACHED.',
  params: {},
  result: Type.Object({
    trace_id: Type.String({ description: 'The kept trace (t1, t2 …), for trace.get.' }),
    bytes: Type.Integer({ description: 'The size of the zip.' }),
    base64: Type.Optional(
      Type.String({ description: 'The zip, base64-encoded, when it is at most MAX_TRACE_INLINE_BYTES.' }),
    ),
  }),
  errors: ['INVALID_PARAMS', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(_params, ctx) {
    const store = tracesOf(ctx.session, traceDeps(ctx.services));
    const { trace_id, bytes } = await store.stop();
    if (bytes > ctx.services.config.maxTraceInlineBytes) return { trace_id, bytes };
    const { data } = await store.read(trace_id, 0, bytes);
    return { trace_id, bytes, base64: data.toString('base64') };
  },
});

export const traceGet = defineSessionMethod({
  name: 'trace.get',
  summary:
    "Read a kept trace (a Playwright zip, or performance.stop's Chromium trace JSON) as base64, in slices of at most 5 MiB (offset and nextOffset page on)",
  params: {
    trace_id: Type.String({
      pattern: '^t[1-9][0-9]{0,8}$',
      description:
        "The trace, as trace.stop, performance.stop or a failed call's error data names it (t1, t2 …).",
    }),
    ...SliceParams,
  },
  result: Type.Object({
    ...SliceResult,
    mime: Type.String({
      description:
        "application/zip: a Playwright trace (trace viewer); application/json: performance.stop's Chromium trace (DevTools Performance panel).",
    }),
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: true,
  async handler(params, ctx) {
    const { data, size, mime } = await tracesOf(ctx.session, traceDeps(ctx.services)).read(
      params.trace_id,
      params.offset,
      params.maxBytes,
    );
    return { ...sliceAnswer(data, params.offset, size), mime };
  },
});

export const artifactsMethods = [pagePdf, traceStart, traceStop, traceGet];
