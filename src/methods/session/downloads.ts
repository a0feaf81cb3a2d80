// downloads.*: what a session's pages downloaded (kept per session within MAX_DOWNLOAD_BYTES,
// MAX_SESSION_DOWNLOAD_BYTES and MAX_SESSION_DOWNLOADS, deleted when it ends), read back in slices.
import { Type } from '@sinclair/typebox';
import { DownloadInfoSchema } from '../../browser/artifacts/downloadStore.js';
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

export const downloadsGet = defineSessionMethod({
  name: 'downloads.get',
  summary: 'Read a saved download as base64, in slices of at most 5 MiB (offset and nextOffset page on)',
  params: {
    download_id: Type.String({
      pattern: '^d[1-9][0-9]{0,8}$',
      description: 'The download, as downloads.list or a navigation answer names it (d1, d2 …).',
    }),
    ...SliceParams,
  },
  result: Type.Object({
    ...SliceResult,
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
    return {
      ...sliceAnswer(data, params.offset, size),
      name: info.name,
      mime: info.mime,
    };
  },
});

export const downloadsMethods = [downloadsList, downloadsGet];
