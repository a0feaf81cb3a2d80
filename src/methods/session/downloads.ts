// downloads.*: what a session's pages downloaded (kept per session within MAX_DOWNLOAD_BYTES,
// MAX_SESSION_DOWNLOAD_BYTES and MAX_SESSION_DOWNLOADS, deleted when it ends), read back in slices.
import { Type } from '@sinclair/typebox';
import { DownloadInfoSchema } from '../../browser/artifacts/downloadStore.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';

/** One downloads.get (or trace.get) answer carries at most this much of a file (base64 makes it 4/3 larger). */
export const MAX_DOWNLOAD_CHUNK_BYTES = 5 * 1024 * 1024;

/** Where a slice of a kept file starts and how much of it to read: downloads.get's and trace.get's. */
export const SliceParams = {
  offset: Type.Integer({
    minimum: 0,
    default: 0,
    description: "Where to start reading, in bytes (default 0; a previous answer's nextOffset).",
  }),
  maxBytes: Type.Integer({
    minimum: 1,
    maximum: MAX_DOWNLOAD_CHUNK_BYTES,
    default: MAX_DOWNLOAD_CHUNK_BYTES,
    description: `Bytes to read at most (default and ceiling ${MAX_DOWNLOAD_CHUNK_BYTES}).`,
  }),
};

/** What a slice answer says of the bytes it carries. */
export const SliceResult = {
  base64: Type.String({ description: 'The bytes read, base64-encoded.' }),
  bytes: Type.Integer({ description: 'How many bytes were read.' }),
  offset: Type.Integer({ description: 'Where they start in the file.' }),
  size: Type.Integer({ description: 'The size of the whole file.' }),
  nextOffset: Type.Optional(
    Type.Integer({ description: 'Where the next slice starts; absent once the end is read.' }),
  ),
};

/** A slice answer for `data` read from `offset` of a file of `size` bytes. */
export function sliceAnswer(
  data: Buffer,
  offset: number,
  size: number,
): { base64: string; bytes: number; offset: number; size: number; nextOffset?: number } {
  const end = offset + data.length;
  return {
    base64: data.toString('base64'),
    bytes: data.length,
    offset,
    size,
    ...(end < size ? { nextOffset: end } : {}),
  };
}

export const downloadsList = defineSessionMethod({
  name: 'downloads.list',
  summary: "List the session's downloads: saved, refused over a cap, failed, or still downloading",
  description:
    "Every download the session's pages started (a link, a navigation to an attachment, a script), oldest first. Saved files stay until the session ends; downloads.get reads them.",
  params: {},
  result: Type.Object({ downloads: Type.Array(DownloadInfoSchema) }),
  errors: [],
  readOnly: true,
  async handler(_params, { session }) {
    return { downloads: session.downloads.list() };
  },
});

/**
 * The UTF-8 text of a slice: a character cut by the slice's end is left for the next slice (the
 * bytes answered end before it), and bytes that are no UTF-8 text are refused.
 */
export function textSlice(data: Buffer, atEndOfFile: boolean, id: string): { text: string; bytes: number } {
  let end = data.length;
  if (!atEndOfFile) {
    // Back over continuation bytes (10xxxxxx) to the lead byte of the last character; if that
    // character needs more bytes than the slice holds, it starts the next slice.
    let lead = end - 1;
    while (lead > 0 && lead > end - 4 && ((data[lead] ?? 0) & 0xc0) === 0x80) lead--;
    const first = data[lead] ?? 0;
    const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
    if (lead + length > end) end = lead;
    if (end === 0)
      throw new ServiceError(
        'INVALID_PARAMS',
        `maxBytes ${data.length} cuts the first character of this slice of ${id}: read at least 4 bytes at a time.`,
        {
          errors: [
            { path: '/maxBytes', message: 'too small for one character', keyword: 'minimum', params: {} },
          ],
        },
      );
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(0, end)), bytes: end };
  } catch {
    throw new ServiceError(
      'INVALID_PARAMS',
      `${id} is not UTF-8 text (a binary file): read it with encoding base64.`,
      {
        errors: [
          { path: '/encoding', message: 'the file is not UTF-8 text', keyword: 'encoding', params: {} },
        ],
      },
    );
  }
}

export const downloadsGet = defineSessionMethod({
  name: 'downloads.get',
  summary:
    'Read a saved download as base64, or as text for a text file, in slices of at most 5 MiB (offset and nextOffset page on)',
  description:
    'encoding text decodes the bytes as UTF-8 (a CSV, JSON or a page of text): a character the slice would cut starts the next slice instead, and a file that is no UTF-8 text is INVALID_PARAMS.',
  params: {
    download_id: Type.String({
      pattern: '^d[1-9][0-9]{0,8}$',
      description: 'The download, as downloads.list or a navigation answer names it (d1, d2 …).',
    }),
    ...SliceParams,
    encoding: Type.Union([Type.Literal('base64'), Type.Literal('text')], {
      default: 'base64',
      description: 'base64 (default), or text: the bytes as UTF-8 text, in `text` instead of `base64`.',
    }),
  },
  result: Type.Object({
    ...SliceResult,
    base64: Type.Optional(SliceResult.base64),
    text: Type.Optional(Type.String({ description: 'The bytes read, as UTF-8 text (encoding text).' })),
    name: Type.String(),
    mime: Type.Union([Type.String(), Type.Null()]),
  }),
  errors: ['INVALID_PARAMS', 'ACTION_FAILED'],
  readOnly: true,
  async handler(params, { session }) {
    const { data, size, info } = await session.downloads.read(
      params.download_id,
      params.offset,
      params.maxBytes,
    );
    const about = { name: info.name, mime: info.mime };
    if (params.encoding === 'base64') return { ...sliceAnswer(data, params.offset, size), ...about };
    const { text, bytes } = textSlice(data, params.offset + data.length >= size, params.download_id);
    const { base64: _bytes, ...slice } = sliceAnswer(data.subarray(0, bytes), params.offset, size);
    return { ...slice, text, ...about };
  },
});

export const downloadsMethods = [downloadsList, downloadsGet];
