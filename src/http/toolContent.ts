import { isObject } from './restCommon.js';

/**
 * The `content` of an execute answer (seed 002's `{content, details}`): a compact text a model
 * reads, while `details` keeps the method's result whole. The text of a reading method is its
 * text; a screenshot is a line saying what the image is (its base64 stays in details); anything
 * else is the result as JSON.
 */
export function toolContent(method: string, result: unknown): string {
  if (!isObject(result)) return JSON.stringify(result ?? null);
  if (method === 'screenshot' && typeof result.base64 === 'string') {
    const mime = typeof result.mime === 'string' ? result.mime : 'image/png';
    return `Screenshot ${mime}, ${String(result.width)}x${String(result.height)} px, ${String(result.bytes)} bytes: the image is in details.base64.`;
  }
  const text = readText(method, result);
  if (text === undefined) return JSON.stringify(result);
  return typeof result.cursor === 'string'
    ? `${text}\n[more: call ${method} again with cursor "${result.cursor}"]`
    : text;
}

/** The methods whose answer is a text, and the field that holds it. */
const TEXT_FIELD: Readonly<Record<string, string>> = {
  'page.text': 'text',
  'page.snapshot': 'snapshot',
  'page.content': 'html',
};

/** The text a reading method answered, or undefined for any other method. */
function readText(method: string, result: Record<string, unknown>): string | undefined {
  const field = TEXT_FIELD[method];
  const value = field === undefined ? undefined : result[field];
  return typeof value === 'string' ? value : undefined;
}
