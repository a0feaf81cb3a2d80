// Files over MCP, whatever their size: a PDF, a trace zip, a download and a HAR come as embedded
// resources with their MIME type, and a screenshot as image content, never as base64 cut to the
// text budget. What the MCP SDK client reassembles is hashed against the bytes the service held: the
// method's own answer (read from the dispatcher) or the same file read over /rpc in slices.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, EmbeddedResource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_RESULT_BUDGET_CHARS } from '../../src/mcp/resultBudget.js';
import { MAX_DOWNLOAD_CHUNK_BYTES } from '../../src/methods/session/downloads.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';
import { zipEntries } from '../helpers/zipEntries.js';

/** Bound on connecting and on each tool call: a 10 MB trace is recorded and read in a few seconds. */
const MCP_TIMEOUT_MS = 60_000;
/** The PDF the test prints is at least this large (5 MiB). */
const BIG_PDF_BYTES = 5 * 1024 * 1024;
/** The trace the test records is at least this large (10 MiB). */
const BIG_TRACE_BYTES = 10 * 1024 * 1024;
/** Figures of /artifacts/long (786 KB of noise each) for each: 8 print to about 6.3 MB, 14 trace to about 11 MB. */
const PDF_FIGURES = 8;
const TRACE_FIGURES = 14;
/** The slice the bug report used: base64 of 15,000 bytes is 20,000 characters, the text budget. */
const SMALL_SLICE_BYTES = 15_000;
/** /rpc reads the same files in slices of this size, unlike MCP's, so the offsets are checked both ways. */
const RPC_SLICE_BYTES = 1024 * 1024;
/** The 8 MiB download of /files/downloads (#big-length): more than one slice over MCP. */
const DOWNLOAD_BYTES = 8 * 1024 * 1024;
/** An answer's JSON without the file: metadata and a note, well inside the budget. */
const METADATA_CHARS = 2_000;

const suite = useServiceSuite();
let client: Client;
let tools: Tool[];

beforeAll(async () => {
  client = new Client({ name: 'mcp-binary-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(
    new URL(`${suite.service.url}/mcp?groups=all&outputSchemas=true`),
    { requestInit: { headers: { 'x-api-key': TEST_API_KEY } } },
  );
  await client.connect(transport, { timeout: MCP_TIMEOUT_MS });
  ({ tools } = await client.listTools());
});

afterAll(async () => {
  await client.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: MCP_TIMEOUT_MS,
  })) as CallToolResult;
}

/** The JSON text part of an answer, checked against the tool's output schema and structuredContent. */
function metadata<T>(name: string, result: CallToolResult): T {
  expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
  const parts = result.content.filter((c) => c.type === 'text');
  expect(parts).toHaveLength(1);
  const part = parts[0];
  if (part?.type !== 'text') throw new Error('no text content');
  expect(part.text.length).toBeLessThan(METADATA_CHARS);
  const answer = JSON.parse(part.text) as T;
  expect(result.structuredContent).toEqual(answer);
  const validate = new Ajv({ strict: false }).compile(tools.find((t) => t.name === name)?.outputSchema ?? {});
  expect(validate(answer), JSON.stringify(validate.errors)).toBe(true);
  expect(answer).not.toHaveProperty('_omitted');
  return answer;
}

/** The one embedded resource of an answer, and its bytes. */
function resourceOf(result: CallToolResult): { resource: EmbeddedResource; bytes: Buffer } {
  const parts = result.content.filter((c) => c.type === 'resource');
  expect(parts).toHaveLength(1);
  const part = parts[0];
  if (part?.type !== 'resource' || !('blob' in part.resource)) throw new Error('no blob resource');
  return { resource: part, bytes: Buffer.from(part.resource.blob, 'base64') };
}

interface ResourceNote {
  uri: string;
  mimeType: string;
  bytes: number;
  note: string;
}
interface Slice {
  _resource: ResourceNote;
  bytes: number;
  offset: number;
  size: number;
  nextOffset?: number;
}
interface RpcSlice {
  base64: string;
  bytes: number;
  offset: number;
  size: number;
  nextOffset?: number;
}

/**
 * The answers the service's dispatcher gives for a method while the test runs: what the service
 * held before MCP turned it into content.
 */
function heldAnswers(method: string): unknown[] {
  const held: unknown[] = [];
  const dispatcher = suite.service.running.dispatcher;
  const original = dispatcher.call.bind(dispatcher);
  vi.spyOn(dispatcher, 'call').mockImplementation(async (name, params, ctx) => {
    const answer = await original(name, params, ctx);
    if (name === method) held.push(answer);
    return answer;
  });
  return held;
}

/** The base64 field of the one answer held, decoded. */
function heldBytes(held: unknown[], field = 'base64'): Buffer {
  expect(held).toHaveLength(1);
  const answer = held[0];
  if (typeof answer !== 'object' || answer === null || !(field in answer)) throw new Error(`no ${field}`);
  const value = (answer as Record<string, unknown>)[field];
  if (typeof value !== 'string') throw new Error(`${field} is not a string`);
  return Buffer.from(value, 'base64');
}

/** Reads a whole kept file over MCP, slice after slice, checking that each slice's numbers add up. */
async function readOverMcp(
  tool: string,
  args: Record<string, unknown>,
  mimeType: string,
): Promise<{ bytes: Buffer; slices: number }> {
  const parts: Buffer[] = [];
  let offset: number | undefined = 0;
  let size = -1;
  while (offset !== undefined) {
    const result = await call(tool, { ...args, offset });
    const slice = metadata<Slice>(tool, result);
    const { resource, bytes } = resourceOf(result);
    expect(resource.resource.mimeType).toBe(mimeType);
    expect(resource.resource.uri).toBe(slice._resource.uri);
    expect(slice).toMatchObject({ offset, bytes: bytes.length });
    expect(slice._resource).toMatchObject({ mimeType, bytes: bytes.length });
    if (size < 0) size = slice.size;
    expect(slice.size).toBe(size);
    if (slice.nextOffset !== undefined) {
      expect(slice.nextOffset).toBe(offset + bytes.length);
      expect(slice._resource.note).toContain(`offset ${slice.nextOffset}`);
    } else expect(offset + bytes.length).toBe(size);
    parts.push(bytes);
    offset = slice.nextOffset;
  }
  return { bytes: Buffer.concat(parts), slices: parts.length };
}

/** Reads a whole kept file over /rpc in RPC_SLICE_BYTES slices. */
async function readOverRpc(method: string, params: Record<string, unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const slice: RpcSlice = await suite.service.call<RpcSlice>(method, {
      ...params,
      offset,
      maxBytes: RPC_SLICE_BYTES,
    });
    const bytes = Buffer.from(slice.base64, 'base64');
    expect(slice).toMatchObject({ offset, bytes: bytes.length });
    if (slice.nextOffset !== undefined) expect(slice.nextOffset).toBe(offset + bytes.length);
    parts.push(bytes);
    offset = slice.nextOffset;
  }
  return Buffer.concat(parts);
}

async function openSession(path: string): Promise<string> {
  const { session_id } = metadata<{ session_id: string }>('session_create', await call('session_create', {}));
  const nav = await call('page_goto', { session_id, url: `${suite.fixture.url}${path}`, waitUntil: 'load' });
  expect(nav.isError, JSON.stringify(nav.content)).toBeFalsy();
  return session_id;
}

describe('files over MCP are byte-exact, whatever their size', () => {
  it('page_pdf of a long page: a PDF of over 5 MiB as one application/pdf resource, the bytes the service printed', async () => {
    const session_id = await openSession(`/artifacts/long?figures=${PDF_FIGURES}`);
    const held = heldAnswers('page.pdf');
    const result = await call('page_pdf', { session_id });
    const answer = metadata<{ _resource: ResourceNote; bytes: number; pages: number }>('page_pdf', result);
    const { resource, bytes } = resourceOf(result);
    const printed = heldBytes(held);
    expect(printed.length).toBeGreaterThanOrEqual(BIG_PDF_BYTES);
    expect(bytes.length).toBe(printed.length);
    expect(sha256(bytes)).toBe(sha256(printed));
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(resource.resource).toMatchObject({
      mimeType: 'application/pdf',
      uri: `playwright-jsonrpc://${session_id}/page.pdf`,
    });
    expect(resource.annotations).toEqual({ audience: ['user'] });
    expect(answer).toMatchObject({ bytes: bytes.length, pages: PDF_FIGURES });
    expect(answer._resource).toMatchObject({ uri: resource.resource.uri, bytes: bytes.length });
    expect(answer._resource.note).toContain(`${bytes.length} bytes`);
    await call('session_close', { session_id });
  });

  it('a trace of over 10 MiB: trace_get slices add up over MCP and /rpc, and hash the same', async () => {
    const session_id = await openSession('/artifacts/trace');
    expect((await call('trace_start', { session_id, title: 'big' })).isError).toBeFalsy();
    const nav = await call('page_goto', {
      session_id,
      url: `${suite.fixture.url}/artifacts/long?figures=${TRACE_FIGURES}`,
      waitUntil: 'load',
    });
    expect(nav.isError).toBeFalsy();
    expect(
      (await call('page_scroll', { session_id, selector: 'section:last-of-type img' })).isError,
    ).toBeFalsy();
    const stopped = await call('trace_stop', { session_id });
    // Too large to come inline: only its id and size, no resource.
    const { trace_id, bytes: size } = metadata<{ trace_id: string; bytes: number }>('trace_stop', stopped);
    expect(stopped.content.filter((c) => c.type === 'resource')).toEqual([]);
    expect(size).toBeGreaterThanOrEqual(BIG_TRACE_BYTES);

    const viaMcp = await readOverMcp('trace_get', { session_id, trace_id }, 'application/zip');
    expect(viaMcp.bytes.length).toBe(size);
    // The method's own slices (5 MiB) over MCP: a few calls, not hundreds.
    expect(viaMcp.slices).toBe(Math.ceil(size / MAX_DOWNLOAD_CHUNK_BYTES));
    const viaRpc = await readOverRpc('trace.get', { session_id, trace_id });
    expect(viaRpc.length).toBe(size);
    expect(sha256(viaMcp.bytes)).toBe(sha256(viaRpc));
    expect(zipEntries(viaMcp.bytes).has('trace.trace')).toBe(true);

    // A small slice (the size the text budget once cut by 93 characters) says the truth both ways.
    const small = await call('trace_get', { session_id, trace_id, maxBytes: SMALL_SLICE_BYTES });
    const first = metadata<Slice>('trace_get', small);
    expect(first).toMatchObject({ offset: 0, bytes: SMALL_SLICE_BYTES, nextOffset: SMALL_SLICE_BYTES, size });
    expect(resourceOf(small).bytes.equals(viaRpc.subarray(0, SMALL_SLICE_BYTES))).toBe(true);
    expect(first._resource.uri).toBe(
      `playwright-jsonrpc://${session_id}/traces/${trace_id}.zip?offset=0&bytes=${SMALL_SLICE_BYTES}`,
    );
    const rpcSmall = await suite.service.call<RpcSlice>('trace.get', {
      session_id,
      trace_id,
      maxBytes: SMALL_SLICE_BYTES,
    });
    expect(rpcSmall).toMatchObject({ offset: 0, bytes: SMALL_SLICE_BYTES, nextOffset: SMALL_SLICE_BYTES });
    expect(Buffer.from(rpcSmall.base64, 'base64').length).toBe(SMALL_SLICE_BYTES);
    const second = await call('trace_get', {
      session_id,
      trace_id,
      offset: first.nextOffset,
      maxBytes: SMALL_SLICE_BYTES,
    });
    expect(resourceOf(second).bytes.equals(viaRpc.subarray(SMALL_SLICE_BYTES, 2 * SMALL_SLICE_BYTES))).toBe(
      true,
    );

    // At the end: an empty last slice. Past it: a clear error, over MCP as over /rpc.
    const end = await call('trace_get', { session_id, trace_id, offset: size });
    expect(metadata<Slice>('trace_get', end)).toMatchObject({ offset: size, bytes: 0, size });
    expect(metadata<Slice>('trace_get', end).nextOffset).toBeUndefined();
    const past = await call('trace_get', { session_id, trace_id, offset: size + 1 });
    expect(past.isError).toBe(true);
    const error = JSON.parse(past.content[0]?.type === 'text' ? past.content[0].text : '{}') as {
      code: number;
      message: string;
    };
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`offset ${size + 1} is past the end of ${trace_id} (${size} bytes)`);
    expect(error.message).toContain('nextOffset');
    await expect(
      suite.service.call('trace.get', { session_id, trace_id, offset: size + 1 }),
    ).rejects.toMatchObject({ code: -32602 });
    await call('session_close', { session_id });
  });

  it('trace_stop of a small trace: the zip inline as an application/zip resource, the kept trace byte for byte', async () => {
    const session_id = await openSession('/artifacts/trace');
    await call('trace_start', { session_id });
    expect((await call('page_click', { session_id, selector: '#go' })).isError).toBeFalsy();
    const stopped = await call('trace_stop', { session_id });
    const answer = metadata<{ trace_id: string; bytes: number; _resource: ResourceNote }>(
      'trace_stop',
      stopped,
    );
    const { resource, bytes } = resourceOf(stopped);
    expect(resource.resource).toMatchObject({
      mimeType: 'application/zip',
      uri: `playwright-jsonrpc://${session_id}/traces/${answer.trace_id}.zip`,
    });
    expect(answer).toMatchObject({ bytes: bytes.length, _resource: { bytes: bytes.length } });
    const kept = await readOverRpc('trace.get', { session_id, trace_id: answer.trace_id });
    expect(sha256(bytes)).toBe(sha256(kept));
    expect(zipEntries(bytes).has('trace.trace')).toBe(true);
    await call('session_close', { session_id });
  });

  it('downloads_get: an 8 MiB download in slices with its MIME type, hashed against /rpc', async () => {
    const session_id = await openSession('/files/downloads');
    await call('page_click', { session_id, selector: '#big-length' });
    await waitFor(
      async () => {
        const listed = metadata<{ downloads: { download_id: string; state: string }[] }>(
          'downloads_list',
          await call('downloads_list', { session_id }),
        );
        return listed.downloads.some((d) => d.download_id === 'd1' && d.state === 'saved');
      },
      30_000,
      'the download to be saved',
    );
    const viaMcp = await readOverMcp(
      'downloads_get',
      { session_id, download_id: 'd1' },
      'application/octet-stream',
    );
    expect(viaMcp.bytes.length).toBe(DOWNLOAD_BYTES);
    expect(viaMcp.slices).toBe(Math.ceil(DOWNLOAD_BYTES / MAX_DOWNLOAD_CHUNK_BYTES));
    const viaRpc = await readOverRpc('downloads.get', { session_id, download_id: 'd1' });
    expect(sha256(viaMcp.bytes)).toBe(sha256(viaRpc));
    await call('session_close', { session_id });
  });

  it('network_har: the HAR as an application/json resource, the JSON the service built', async () => {
    const session_id = await openSession(`/artifacts/long?figures=2`);
    const held = heldAnswers('network.har');
    const result = await call('network_har', { session_id });
    const answer = metadata<{ entries: number; _resource: ResourceNote }>('network_har', result);
    const { resource, bytes } = resourceOf(result);
    expect(resource.resource.mimeType).toBe('application/json');
    expect(held).toHaveLength(1);
    const built = Buffer.from(JSON.stringify((held[0] as { har: unknown }).har), 'utf8');
    expect(sha256(bytes)).toBe(sha256(built));
    const har = JSON.parse(bytes.toString('utf8')) as { log: { entries: unknown[] } };
    expect(har.log.entries).toHaveLength(answer.entries);
    expect(answer.entries).toBeGreaterThanOrEqual(3);
    expect(answer).not.toHaveProperty('har');
    await call('session_close', { session_id });
  });

  it('screenshot: image content with its MIME type (PNG, JPEG), whole even when it is megabytes', async () => {
    const session_id = await openSession(`/artifacts/long?figures=${PDF_FIGURES}`);
    const held = heldAnswers('screenshot');
    const png = await call('screenshot', { session_id, fullPage: true });
    const image = png.content.find((c) => c.type === 'image');
    if (image?.type !== 'image') throw new Error('no image content');
    expect(image.mimeType).toBe('image/png');
    const pngBytes = Buffer.from(image.data, 'base64');
    // Larger than the text budget many times over, and whole.
    expect(image.data.length).toBeGreaterThan(MCP_RESULT_BUDGET_CHARS * 100);
    expect(sha256(pngBytes)).toBe(sha256(heldBytes(held)));
    expect(metadata<{ bytes: number; mime: string }>('screenshot', png)).toMatchObject({
      bytes: pngBytes.length,
      mime: 'image/png',
    });
    const jpeg = await call('screenshot', { session_id, mime: 'image/jpeg', quality: 80 });
    const photo = jpeg.content.find((c) => c.type === 'image');
    if (photo?.type !== 'image') throw new Error('no image content');
    expect(photo.mimeType).toBe('image/jpeg');
    expect(Buffer.from(photo.data, 'base64').subarray(0, 3).toString('hex')).toBe('ffd8ff');
    await call('session_close', { session_id });
  });
});
