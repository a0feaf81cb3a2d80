// Files in MCP answers (src/mcp/binaryResults.ts, toolOutput.ts): the bytes leave the JSON as an
// embedded resource whatever their size, the JSON says where they went, and the output schemas agree.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { binaryResource } from '../../src/mcp/binaryResults.js';
import { MCP_RESULT_BUDGET_CHARS } from '../../src/mcp/resultBudget.js';
import { outputSchemaOf, toolResult } from '../../src/mcp/toolOutput.js';
import { allMethods } from '../../src/methods/index.js';
import type { MethodInfo } from '../../src/rpc/defineMethod.js';

const def = (name: string): MethodInfo => {
  const found = allMethods.find((m) => m.name === name);
  if (found === undefined) throw new Error(`no method ${name}`);
  return found;
};

/** Bytes i mod 251: a slice shows where it came from. */
const pattern = (length: number, from = 0): Buffer =>
  Buffer.from(Array.from({ length }, (_, i) => (from + i) % 251));

/** Many times the text budget, as base64. */
const LARGE_BYTES = MCP_RESULT_BUDGET_CHARS * 10;

function resourceBytes(result: ReturnType<typeof toolResult>): {
  uri: string;
  mimeType?: string;
  bytes: Buffer;
} {
  const part = result.content.find((c) => c.type === 'resource');
  if (part?.type !== 'resource' || !('blob' in part.resource)) throw new Error('no blob resource');
  return {
    uri: part.resource.uri,
    mimeType: part.resource.mimeType,
    bytes: Buffer.from(part.resource.blob, 'base64'),
  };
}

function valid(name: string, structured: unknown): boolean {
  const validate = new Ajv({ strict: false }).compile(outputSchemaOf(def(name)));
  return validate(structured);
}

describe('files in MCP answers', () => {
  it('answers a PDF far over the text budget as one embedded resource, every byte, and its metadata as JSON', () => {
    const pdf = pattern(LARGE_BYTES);
    const result = toolResult(
      def('page.pdf'),
      { base64: pdf.toString('base64'), bytes: pdf.length, pages: 3 },
      { session_id: 's_abc' },
    );
    const file = resourceBytes(result);
    expect(file).toMatchObject({ uri: 'playwright-jsonrpc://s_abc/page.pdf', mimeType: 'application/pdf' });
    expect(file.bytes.equals(pdf)).toBe(true);
    const text = result.content.find((c) => c.type === 'text');
    expect(text?.type === 'text' && JSON.parse(text.text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toEqual({
      _resource: {
        uri: file.uri,
        mimeType: 'application/pdf',
        bytes: LARGE_BYTES,
        note: expect.stringContaining(`${LARGE_BYTES} bytes`) as unknown,
      },
      bytes: LARGE_BYTES,
      pages: 3,
    });
    expect(valid('page.pdf', result.structuredContent)).toBe(true);
  });

  it('names a slice by its range and says how to read on; the last slice says it is the last', () => {
    const first = toolResult(
      def('trace.get'),
      {
        base64: pattern(1000).toString('base64'),
        bytes: 1000,
        offset: 0,
        size: 2500,
        nextOffset: 1000,
        mime: 'application/zip',
      },
      { session_id: 's_abc', trace_id: 't2' },
    );
    expect(resourceBytes(first)).toMatchObject({
      uri: 'playwright-jsonrpc://s_abc/traces/t2.zip?offset=0&bytes=1000',
      mimeType: 'application/zip',
    });
    const note = (first.structuredContent as { _resource: { note: string } })._resource.note;
    expect(note).toContain('Call trace_get again with offset 1000');
    expect(valid('trace.get', first.structuredContent)).toBe(true);
    const last = toolResult(
      def('trace.get'),
      { base64: pattern(500, 2000).toString('base64'), bytes: 500, offset: 2000, size: 2500 },
      { session_id: 's_abc', trace_id: 't2' },
    );
    expect((last.structuredContent as { _resource: { note: string } })._resource.note).toContain(
      'This is the last slice',
    );
    // A whole file in one slice is named without a range.
    const whole = binaryResource(
      'trace.get',
      { base64: 'AAAA', bytes: 3, offset: 0, size: 3 },
      { session_id: 's_abc', trace_id: 't2' },
    );
    expect(whole?.note.uri).toBe('playwright-jsonrpc://s_abc/traces/t2.zip');
    // performance.stop's trace is JSON, and named so.
    const json = toolResult(
      def('trace.get'),
      { base64: 'e30=', bytes: 2, offset: 0, size: 2, mime: 'application/json' },
      { session_id: 's_abc', trace_id: 't3' },
    );
    expect(resourceBytes(json)).toMatchObject({
      uri: 'playwright-jsonrpc://s_abc/traces/t3.json',
      mimeType: 'application/json',
    });
  });

  it("gives a download its own MIME type and name, and a HAR's JSON as an application/json file", () => {
    const download = toolResult(
      def('downloads.get'),
      { base64: 'aGk=', bytes: 2, offset: 0, size: 2, name: 'a b.csv', mime: 'text/csv' },
      { session_id: 's_abc', download_id: 'd1' },
    );
    expect(resourceBytes(download)).toMatchObject({
      uri: 'playwright-jsonrpc://s_abc/downloads/d1/a%20b.csv',
      mimeType: 'text/csv',
    });
    expect(valid('downloads.get', download.structuredContent)).toBe(true);
    const unknown = binaryResource(
      'downloads.get',
      { base64: 'aGk=', bytes: 2, offset: 0, size: 2, name: 'x', mime: null },
      { session_id: 's', download_id: 'd1' },
    );
    expect(unknown?.resource.resource.mimeType).toBe('application/octet-stream');

    const har = { log: { version: '1.2', entries: [{ request: { url: 'http://127.0.0.1/é' } }] } };
    const exported = toolResult(def('network.har'), { har, entries: 1 }, { session_id: 's_abc' });
    const file = resourceBytes(exported);
    expect(file.mimeType).toBe('application/json');
    expect(file.bytes.toString('utf8')).toBe(JSON.stringify(har));
    expect(exported.structuredContent).not.toHaveProperty('har');
    expect(valid('network.har', exported.structuredContent)).toBe(true);
  });

  it('adds no resource where there is no file, and leaves the schemas of other methods alone', () => {
    const large = toolResult(def('trace.stop'), { trace_id: 't1', bytes: 9_000_000 }, { session_id: 's' });
    expect(large.content.map((c) => c.type)).toEqual(['text']);
    expect(large.structuredContent).toEqual({ trace_id: 't1', bytes: 9_000_000 });
    expect(valid('trace.stop', large.structuredContent)).toBe(true);
    for (const name of ['page.pdf', 'trace.stop', 'trace.get', 'downloads.get'])
      expect(outputSchemaOf(def(name)).required ?? [], name).not.toContain('base64');
    expect(outputSchemaOf(def('network.har')).required).not.toContain('har');
    expect(outputSchemaOf(def('page.text')).properties).not.toHaveProperty('_resource');
    const text = toolResult(def('page.text'), { text: 'hello' }, { session_id: 's' });
    expect(text.content.map((c) => c.type)).toEqual(['text']);
  });
});
