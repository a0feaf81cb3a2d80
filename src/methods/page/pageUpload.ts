// page.upload: files given inline (base64, or text sent as UTF-8) set on a file input, hidden or not, or on the file
// chooser a button opens. Capped by MAX_UPLOAD_BYTES, which BODY_LIMIT bounds in turn.
import { Type, type Static } from '@sinclair/typebox';
import { cleanFileName, MAX_FILE_NAME_CHARS } from '../../browser/artifacts/fileNames.js';
import { uploadFiles, type UploadFile } from '../../browser/artifacts/fileUpload.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineActionMethod } from '../defineActionMethod.js';
import { ACTION_TIMEOUT_MS, Target, timeoutParam } from '../params.js';

/** Files one page.upload may carry: a form takes a handful; more is several calls. */
export const MAX_UPLOAD_FILES = 20;
/**
 * Base64 characters only (no line breaks); the handler checks the padding (a length of 4n). A
 * pattern of 4-character groups would say it all, but V8 backtracks through it: 0.3 s for 1 MB, a
 * stack overflow at 10 MB. A single character class runs in linear time.
 */
const BASE64_PATTERN = '^[A-Za-z0-9+/]*={0,2}$';

/** A MIME type as type/subtype. */
const MIME_TYPE_PATTERN = '^[A-Za-z0-9][\\w.+-]*/[\\w.+-]+$';

const UploadFileSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_FILE_NAME_CHARS,
      description:
        'The file name the page sees; a path is cut to its last part and control characters are removed.',
    }),
    mimeType: Type.String({
      pattern: MIME_TYPE_PATTERN,
      maxLength: 255,
      default: 'application/octet-stream',
      description: 'The MIME type the page sees (default application/octet-stream).',
    }),
    base64: Type.Optional(
      Type.String({
        pattern: BASE64_PATTERN,
        description:
          'The content, base64 (padded, no line breaks). All files together decode to at most MAX_UPLOAD_BYTES.',
      }),
    ),
    text: Type.Optional(
      Type.String({
        description: 'Instead of base64: the content as text, sent as UTF-8 (a CSV, a JSON file, notes).',
      }),
    ),
  },
  { additionalProperties: false },
);

type GivenFile = Static<typeof UploadFileSchema>;

/** `path`'s one INVALID_PARAMS issue for `method`, as the validator words them. */
function invalidFile(method: string, path: string, message: string, keyword: string): ServiceError {
  return new ServiceError(
    'INVALID_PARAMS',
    `Invalid params for ${method}: ${path
      .slice(1)
      .replace(/\//g, '.')
      .replace(/\.(\d+)/g, '[$1]')} ${message}.`,
    {
      errors: [{ path, message, keyword, params: {} }],
    },
  );
}

/**
 * The files of a page.upload or page.drop as bytes: each with exactly one of base64 (padded) and
 * text, the names cleaned, all together (with `otherBytes` of data beside them) at most `maxBytes`
 * (MAX_UPLOAD_BYTES) or LIMIT_REACHED.
 */
export function decodeFiles(
  method: string,
  given: GivenFile[],
  maxBytes: number,
  otherBytes = 0,
): UploadFile[] {
  const unclear = given.findIndex((f) => (f.base64 === undefined) === (f.text === undefined));
  if (unclear !== -1)
    throw invalidFile(method, `/files/${unclear}`, 'needs exactly one of base64 and text', 'oneOf');
  const unpadded = given.findIndex((f) => f.base64 !== undefined && f.base64.length % 4 !== 0);
  if (unpadded !== -1)
    throw invalidFile(
      method,
      `/files/${unpadded}/base64`,
      'is not padded base64 (its length must be a multiple of 4)',
      'pattern',
    );
  const files = given.map((f) => ({
    name: cleanFileName(f.name, 'file'),
    mimeType: f.mimeType,
    buffer: f.base64 !== undefined ? Buffer.from(f.base64, 'base64') : Buffer.from(f.text ?? '', 'utf8'),
  }));
  const total = files.reduce((sum, f) => sum + f.buffer.length, otherBytes);
  if (total > maxBytes)
    throw new ServiceError(
      'LIMIT_REACHED',
      `The files${otherBytes > 0 ? ' and data' : ''} decode to ${total} bytes, over MAX_UPLOAD_BYTES (${maxBytes}); send fewer or smaller files (BODY_LIMIT bounds a call's JSON too).`,
      { limit: 'MAX_UPLOAD_BYTES', bytes: total, maxBytes },
    );
  return files;
}

export const pageUpload = defineActionMethod({
  name: 'page.upload',
  summary:
    'Set the files of an <input type=file> (hidden ones too) or of the file chooser a button opens, from base64 or text',
  description: `The target is an <input type=file>, visible or hidden, or an element whose click opens a file chooser (a styled button that calls input.click()); anything else fails with ACTION_FAILED. Several files only for an input with multiple. An empty files list clears the input. At most ${MAX_UPLOAD_FILES} files, decoding to MAX_UPLOAD_BYTES together (by default what BODY_LIMIT lets through as base64). The page gets input and change events as from a person.`,
  params: {
    ...Target,
    files: Type.Array(UploadFileSchema, {
      maxItems: MAX_UPLOAD_FILES,
      description: `The files (at most ${MAX_UPLOAD_FILES}); empty clears the input.`,
    }),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element and, for a button, its file chooser'),
  },
  result: Type.Object({
    ok: Type.Boolean({ description: 'True when the files were set.' }),
    via: Type.Union([Type.Literal('input'), Type.Literal('chooser')], {
      description:
        'input: set on the <input type=file> itself; chooser: on the file chooser the click opened.',
    }),
    files: Type.Array(Type.Object({ name: Type.String(), mimeType: Type.String(), bytes: Type.Integer() }), {
      description: 'The files as the page got them (names cleaned).',
    }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'INVALID_PARAMS', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(params, { session, services }) {
    const files = decodeFiles('page.upload', params.files, services.config.maxUploadBytes);
    const target = await session.target(params.selector, params.ref);
    const via = await uploadFiles(session.page, target, files, params.timeout);
    return {
      ok: true,
      via,
      files: files.map((f) => ({ name: f.name, mimeType: f.mimeType, bytes: f.buffer.length })),
    };
  },
});

/** Data entries one page.drop may carry (text/plain, text/uri-list, text/html …). */
export const MAX_DROP_TYPES = 8;

/** What the drop zone did with the drag events page.drop sent it. */
interface DropOutcome {
  accepted: boolean;
  handled: boolean;
}

/**
 * In the page: a DataTransfer with `files` and `data`, and dragenter, dragover and (when the
 * dragover was cancelled, as a drop zone does) drop sent at the element's centre, to the element a
 * pointer there would hit when it is inside `el`. A dragover nobody cancelled ends with dragleave
 * and no drop, as in a browser.
 */
function dropInPage(
  el: Element,
  given: { files: { name: string; mimeType: string; base64: string }[]; data: [string, string][] },
): DropOutcome {
  const transfer = new DataTransfer();
  for (const f of given.files) {
    const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], f.name, { type: f.mimeType }));
  }
  for (const [type, value] of given.data) transfer.setData(type, value);
  const box = el.getBoundingClientRect();
  const clientX = box.left + box.width / 2;
  const clientY = box.top + box.height / 2;
  const hit = document.elementFromPoint(clientX, clientY);
  const at = hit !== null && el.contains(hit) ? hit : el;
  const fire = (type: string): boolean =>
    at.dispatchEvent(
      new DragEvent(type, {
        bubbles: true,
        cancelable: true,
        composed: true,
        dataTransfer: transfer,
        clientX,
        clientY,
      }),
    );
  fire('dragenter');
  const accepted = !fire('dragover');
  if (!accepted) {
    fire('dragleave');
    return { accepted, handled: false };
  }
  return { accepted, handled: !fire('drop') };
}

export const pageDrop = defineActionMethod({
  name: 'page.drop',
  summary:
    'Drop files or data (text/plain, text/uri-list …) onto an element, as dragged in from outside the page',
  description: `For drop zones that are not file inputs (page.upload sets those): the element gets dragenter, dragover and drop at its centre with a DataTransfer holding the files and the data entries, as when a person drags files or a link in from outside the browser. At least one file or data entry. A drop zone cancels dragover; when nothing does, the element is not one: dragleave follows, no drop, and the call fails with ACTION_FAILED. At most ${MAX_UPLOAD_FILES} files and ${MAX_DROP_TYPES} data entries, decoding to MAX_UPLOAD_BYTES together.`,
  params: {
    ...Target,
    files: Type.Optional(
      Type.Array(UploadFileSchema, {
        maxItems: MAX_UPLOAD_FILES,
        description: `Files dropped (at most ${MAX_UPLOAD_FILES}), as for page.upload.`,
      }),
    ),
    data: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        propertyNames: { pattern: MIME_TYPE_PATTERN, maxLength: 255 },
        maxProperties: MAX_DROP_TYPES,
        description:
          'Data entries by MIME type, e.g. {"text/plain": "hello", "text/uri-list": "http://127.0.0.1/a"}: what the page reads with dataTransfer.getData(type).',
      }),
    ),
    timeout: timeoutParam(ACTION_TIMEOUT_MS, 'the element'),
  },
  result: Type.Object({
    ok: Type.Boolean({ description: 'True when the element took the drop.' }),
    handled: Type.Boolean({
      description:
        "True when the page's drop handler cancelled the drop event (preventDefault), as drop zones do when they take it.",
    }),
    files: Type.Array(Type.Object({ name: Type.String(), mimeType: Type.String(), bytes: Type.Integer() }), {
      description: 'The files as the page got them (names cleaned).',
    }),
    types: Type.Array(Type.String(), { description: 'The data entries dropped, by MIME type.' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'INVALID_PARAMS', 'LIMIT_REACHED'],
  readOnly: false,
  async handler(params, { session, services }) {
    const data = Object.entries(params.data ?? {});
    if ((params.files ?? []).length === 0 && data.length === 0)
      throw invalidFile('page.drop', '/files', 'or data: give at least one file or data entry', 'minItems');
    const dataBytes = data.reduce((sum, [, value]) => sum + Buffer.byteLength(value), 0);
    const files = decodeFiles('page.drop', params.files ?? [], services.config.maxUploadBytes, dataBytes);
    const target = await session.target(params.selector, params.ref);
    await target.scrollIntoViewIfNeeded({ timeout: params.timeout });
    const outcome = await target.evaluate(
      dropInPage,
      {
        files: files.map((f) => ({
          name: f.name,
          mimeType: f.mimeType,
          base64: f.buffer.toString('base64'),
        })),
        data,
      },
      { timeout: params.timeout },
    );
    if (!outcome.accepted)
      throw new ServiceError(
        'ACTION_FAILED',
        'The element did not take the drop: nothing cancelled its dragover, so it is not a drop zone (a browser sends no drop then). Drop onto the element that handles drops; for an <input type=file> use page.upload.',
        { method: 'page.drop' },
      );
    return {
      ok: true,
      handled: outcome.handled,
      files: files.map((f) => ({ name: f.name, mimeType: f.mimeType, bytes: f.buffer.length })),
      types: data.map(([type]) => type),
    };
  },
});
export const pageUploadMethods = [pageUpload, pageDrop];
