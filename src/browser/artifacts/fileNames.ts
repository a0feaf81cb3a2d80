// File names that come from a page (a download's suggested name) or a caller (an upload's name):
// made safe to show and to hand to the browser, and the MIME type their extension implies.

/** A file name is cut to this many characters (a download's file on disk is named by its id anyway). */
export const MAX_FILE_NAME_CHARS = 255;

/** A file name a caller can read: no path, no control characters, bounded; `fallback` when nothing is left. */
export function cleanFileName(raw: string, fallback = 'download'): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const name = cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
  return name.slice(0, MAX_FILE_NAME_CHARS);
}

const MIME_BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  js: 'text/javascript',
  css: 'text/css',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/** The MIME type of a file name's extension; application/octet-stream for one not in the table. */
export function mimeOfName(name: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return (ext === undefined ? undefined : MIME_BY_EXTENSION[ext]) ?? 'application/octet-stream';
}
