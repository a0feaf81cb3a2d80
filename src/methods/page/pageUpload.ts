// page.upload: files given inline (base64, or text sent as UTF-8) set on a file input, hidden or not, or on the file
// chooser a button opens. Capped by MAX_UPLOAD_BYTES, which BODY_LIMIT bounds in turn.
import { Type } from '@sinclair/typebox';
import { cleanFileName, MAX_FILE_NAME_CHARS } from '../../browser/artifacts/fileNames.js';
import { uploadFiles } from '../../browser/artifacts/fileUpload.js';
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

const UploadFileSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_FILE_NAME_CHARS,
      description:
        'The file name the page sees; a path is cut to its last part and control characters are removed.',
    }),
    mimeType: Type.String({
      pattern: '^[A-Za-z0-9][\\w.+-]*/[\\w.+-]+$',
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
    const unclear = params.files.findIndex((f) => (f.base64 === undefined) === (f.text === undefined));
    if (unclear !== -1)
      throw new ServiceError(
        'INVALID_PARAMS',
        `Invalid params for page.upload: files[${unclear}] needs exactly one of base64 and text.`,
        {
          errors: [
            {
              path: `/files/${unclear}`,
              message: 'must have exactly one of base64 and text',
              keyword: 'oneOf',
              params: {},
            },
          ],
        },
      );
    const unpadded = params.files.findIndex((f) => f.base64 !== undefined && f.base64.length % 4 !== 0);
    if (unpadded !== -1)
      throw new ServiceError(
        'INVALID_PARAMS',
        `Invalid params for page.upload: files[${unpadded}].base64 is not padded base64 (its length must be a multiple of 4).`,
        {
          errors: [
            {
              path: `/files/${unpadded}/base64`,
              message: 'must be padded base64',
              keyword: 'pattern',
              params: {},
            },
          ],
        },
      );
    const files = params.files.map((f) => ({
      name: cleanFileName(f.name, 'file'),
      mimeType: f.mimeType,
      buffer: f.base64 !== undefined ? Buffer.from(f.base64, 'base64') : Buffer.from(f.text ?? '', 'utf8'),
    }));
    const total = files.reduce((sum, f) => sum + f.buffer.length, 0);
    const limit = services.config.maxUploadBytes;
    if (total > limit)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The files decode to ${total} bytes, over MAX_UPLOAD_BYTES (${limit}); send fewer or smaller files (BODY_LIMIT bounds a call's JSON too).`,
        { limit: 'MAX_UPLOAD_BYTES', bytes: total, maxBytes: limit },
      );
    const target = await session.target(params.selector, params.ref);
    const via = await uploadFiles(session.page, target, files, params.timeout);
    return {
      ok: true,
      via,
      files: files.map((f) => ({ name: f.name, mimeType: f.mimeType, bytes: f.buffer.length })),
    };
  },
});

export const pageUploadMethods = [pageUpload];
