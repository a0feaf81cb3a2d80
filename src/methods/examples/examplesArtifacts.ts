// Examples of page.pdf and trace.* for openrpc.json, from the exchanges docs/behaviour.md shows
// ("PDFs and traces"; base64 shortened; session id the same for every example).
import type { MethodExample } from '../../rpc/openrpc.js';
import { EXAMPLE_SESSION as S } from './exampleValues.js';

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
      },
    },
  ],
};
