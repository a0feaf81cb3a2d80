/**
 * The results that carry a file (a PDF, a trace zip, a download, a HAR) and how MCP answers them: the
 * bytes as an embedded resource (`{type: 'resource', resource: {uri, mimeType, blob}}`), the rest of
 * the result as JSON with `_resource` saying where the bytes went. A file is for the client program
 * (to save, or to open in a viewer), not for the model to read as text: base64 inlined in the JSON
 * would either flood the model's context or be cut by the text budget (resultBudget.ts), and a cut
 * file is useless. Clients keep a blob resource as a file or hand it on; no byte is dropped.
 */
import type { EmbeddedResource } from '@modelcontextprotocol/sdk/types.js';

type JsonObject = Record<string, unknown>;

/**
 * The scheme of the resources' URIs: `playwright-jsonrpc://<session_id>/<path>`. They name the
 * session's artifact for the client (a file name, and a slice's range); there is no resources/read
 * behind them, the bytes are in the answer.
 */
export const RESOURCE_URI_SCHEME = 'playwright-jsonrpc';
/** The MIME type of a file whose type is not known (a download the server sent none for). */
const UNKNOWN_MIME = 'application/octet-stream';

/** A method whose result carries a file, and how to find it in the result. */
interface BinaryResult {
  /** The field of the result that holds the file. */
  readonly field: string;
  /** How the field holds it: base64 text, or a JSON value (the HAR) whose text is the file. */
  readonly encoding: 'base64' | 'json';
  /** What the file is, for the note a model reads ("the PDF"). */
  readonly what: string;
  /** Its MIME type (a download's own when the server named one). */
  mimeType(result: JsonObject): string;
  /** Its path under the session's URI, without a slice's range. */
  path(result: JsonObject, args: JsonObject): string;
  /** For a file read in slices: the tool that reads the next one. */
  readonly pagedBy?: string;
}

const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value.length > 0 ? value : fallback;

/** A file the result carries as base64 text in its `base64` field (every file but the HAR). */
const base64File = (file: Omit<BinaryResult, 'field' | 'encoding'>): BinaryResult => ({
  field: 'base64',
  encoding: 'base64',
  ...file,
});

/** Every method whose result is a file, by method name. */
const BINARY_RESULTS: Readonly<Record<string, BinaryResult>> = {
  'page.pdf': base64File({
    what: 'the PDF',
    mimeType: () => 'application/pdf',
    path: () => 'page.pdf',
  }),
  'trace.stop': base64File({
    what: 'the trace zip',
    mimeType: () => 'application/zip',
    path: (result) => `traces/${encodeURIComponent(text(result.trace_id, 'trace'))}.zip`,
  }),
  'replay.picture': base64File({
    what: 'the replay picture',
    mimeType: () => 'image/jpeg',
    path: (result) => `replay/${encodeURIComponent(String(result.seq))}.jpg`,
  }),
  'replay.trace': base64File({
    what: 'the trace zip',
    mimeType: () => 'application/zip',
    path: (result) => `replay/${encodeURIComponent(text(result.filename, 'session-trace.zip'))}`,
  }),
  'replay.video': base64File({
    what: 'the replay video',
    mimeType: () => 'video/webm',
    path: (result) => `replay/${encodeURIComponent(text(result.filename, 'session-replay.webm'))}`,
  }),
  'trace.get': base64File({
    what: 'the trace',
    mimeType: (result) => text(result.mime, 'application/zip'),
    path: (result, args) =>
      `traces/${encodeURIComponent(text(args.trace_id, 'trace'))}.${result.mime === 'application/json' ? 'json' : 'zip'}`,
    pagedBy: 'trace_get',
  }),
  'downloads.get': base64File({
    what: 'the download',
    mimeType: (result) => text(result.mime, UNKNOWN_MIME),
    path: (result, args) =>
      `downloads/${encodeURIComponent(text(args.download_id, 'download'))}/${encodeURIComponent(text(result.name, 'file'))}`,
    pagedBy: 'downloads_get',
  }),
  'network.har': {
    field: 'har',
    encoding: 'json',
    what: 'the HAR',
    mimeType: () => 'application/json',
    path: () => 'network.har',
  },
};

/** What the JSON of an answer says of the file it carries as a resource (`_resource`). */
export interface ResourceNote {
  uri: string;
  mimeType: string;
  bytes: number;
  note: string;
}

/** The JSON Schema of `_resource`, added to the output schema of every method of BINARY_RESULTS. */
export const RESOURCE_SCHEMA = {
  type: 'object',
  description:
    "Present when the answer carries a file: its bytes are the embedded resource with this uri in the answer's content (base64 in its blob), not in this JSON.",
  required: ['uri', 'mimeType', 'bytes', 'note'],
  properties: {
    uri: { type: 'string', description: 'The URI of the embedded resource that holds the bytes.' },
    mimeType: { type: 'string', description: 'Their MIME type.' },
    bytes: { type: 'integer', description: 'How many bytes the resource holds.' },
    note: { type: 'string', description: 'What the resource is, and how to read the next slice.' },
  },
} as const;

/** The field of a method's result that holds a file, if the method has one. */
export function binaryFieldOf(method: string): string | undefined {
  return BINARY_RESULTS[method]?.field;
}

/** Where a slice answer (trace.get, downloads.get) sits in its file, when the result is one. */
function sliceOf(result: JsonObject): { offset: number; size: number; next: number | undefined } | undefined {
  const { offset, size, nextOffset } = result;
  if (typeof offset !== 'number' || typeof size !== 'number') return undefined;
  return { offset, size, next: typeof nextOffset === 'number' ? nextOffset : undefined };
}

function noteOf(spec: BinaryResult, uri: string, bytes: number, result: JsonObject): string {
  const where = `the resource ${uri} in this answer's content (base64 in its blob), not in this JSON`;
  const slice = spec.pagedBy === undefined ? undefined : sliceOf(result);
  if (slice === undefined || (slice.offset === 0 && slice.next === undefined))
    return `${spec.what.charAt(0).toUpperCase()}${spec.what.slice(1)} (${bytes} bytes) is ${where}.`;
  const next =
    slice.next === undefined
      ? 'This is the last slice'
      : `Call ${spec.pagedBy ?? ''} again with offset ${slice.next} for the next slice`;
  return `The ${bytes} bytes from offset ${slice.offset} of ${spec.what} (${slice.size} bytes in all) are ${where}. ${next}: the slices joined in order of offset are the whole file.`;
}

/**
 * The file of a result as an embedded resource, and the result without it plus its `_resource`
 * note; undefined when the method carries no file or this answer has none (trace.stop of a trace
 * too large to come inline).
 */
export function binaryResource(
  method: string,
  result: JsonObject,
  args: JsonObject,
): { resource: EmbeddedResource; rest: JsonObject; note: ResourceNote } | undefined {
  const spec = BINARY_RESULTS[method];
  if (spec === undefined) return undefined;
  const value = result[spec.field];
  if (value === undefined) return undefined;
  let blob: string;
  let bytes: number;
  if (spec.encoding === 'base64') {
    if (typeof value !== 'string') return undefined;
    blob = value;
    bytes = Buffer.byteLength(value, 'base64');
  } else {
    const json = Buffer.from(JSON.stringify(value), 'utf8');
    blob = json.toString('base64');
    bytes = json.length;
  }
  const slice = spec.pagedBy === undefined ? undefined : sliceOf(result);
  // A slice's URI carries its range, so that two slices of one file never share a name.
  const range =
    slice === undefined || (slice.offset === 0 && slice.next === undefined)
      ? ''
      : `?offset=${slice.offset}&bytes=${bytes}`;
  const session = encodeURIComponent(text(args.session_id, 'session'));
  const uri = `${RESOURCE_URI_SCHEME}://${session}/${spec.path(result, args)}${range}`;
  const mimeType = spec.mimeType(result);
  const rest = { ...result };
  delete rest[spec.field];
  return {
    // audience user: a file for the person and the client program, not text for the model.
    resource: { type: 'resource', resource: { uri, mimeType, blob }, annotations: { audience: ['user'] } },
    rest,
    note: { uri, mimeType, bytes, note: noteOf(spec, uri, bytes, result) },
  };
}
