/**
 * What a log line may carry of a URL or of free text. Callers' URLs hold credentials in userinfo
 * and tokens in query strings; pages and agents write anything in their error messages. Every
 * string of every log line passes here (createLogger's formatter), whatever logged it.
 */

/** A URL inside free text: a scheme, `://`, and everything up to white space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s"'<>`]+/gi;
/** Punctuation that ends a sentence rather than a URL: kept, but not parsed into the query. */
const TRAILING_PUNCTUATION = /[).,;:!?\]]+$/;
/** A log line's strings are cut here: a megabyte of page text must not become a megabyte log line. */
export const MAX_LOGGED_STRING_CHARS = 2000;
/** How deep a logged object is walked; deeper values are replaced, never serialised whole. */
const MAX_SCRUB_DEPTH = 6;
export const REDACTED = '***';

/** A URL without its userinfo, and with the value of every query (and fragment) parameter replaced. */
export function scrubUrl(raw: string): string {
  const tail = TRAILING_PUNCTUATION.exec(raw)?.[0] ?? '';
  const text = raw.slice(0, raw.length - tail.length);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not parseable: drop anything that looks like userinfo or a query rather than guess.
    return `${text.replace(/\/\/[^/@]*@/, `//${REDACTED}@`).replace(/[?#].*$/, `?${REDACTED}`)}${tail}`;
  }
  if (url.username !== '' || url.password !== '') {
    url.username = REDACTED;
    url.password = '';
  }
  if (url.search !== '') url.search = redactPairs(url.search.slice(1));
  if (url.hash.includes('=')) url.hash = redactPairs(url.hash.slice(1));
  return `${url.href}${tail}`;
}

function redactPairs(pairs: string): string {
  return pairs
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

/** Free text with every URL in it scrubbed, cut at MAX_LOGGED_STRING_CHARS. */
export function scrubText(text: string, max = MAX_LOGGED_STRING_CHARS): string {
  const cut = text.length > max ? `${text.slice(0, max)}… [${text.length - max} more chars]` : text;
  return cut.replace(URL_IN_TEXT, scrubUrl);
}

/** A log object with every string in it scrubbed; errors become plain { type, message, stack }. */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_SCRUB_DEPTH) return '[too deep]';
  if (value instanceof Error) {
    const plain: Record<string, unknown> = { type: value.name, message: scrubText(value.message) };
    if (value.stack !== undefined) plain.stack = scrubText(value.stack);
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) plain.code = scrubValue(code, depth + 1);
    return plain;
  }
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, depth + 1);
  return out;
}
