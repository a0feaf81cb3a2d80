// @ts-check
// The runner page's eval samples (seed 002: "user selects/pastes eval sample"): what a sample and
// its check are, the checks a samples file or a pasted sample must pass before a run may start, and
// the reward of a check, read from the final page with the service's own session methods through
// execute. runner.js wires it to the page; runnerLoop.js runs the check at the end of a run.

/** The samples file the page offers, served beside it. */
export const SAMPLES_URL = '/ui/runnerSamples.json';
/** The largest samples file the page reads: a list of tasks, never a data set. */
export const MAX_SAMPLES_FILE_BYTES = 256 * 1024;
/** Samples a file may list: the picker is one drop-down. */
export const MAX_SAMPLES = 100;
/** The largest sample a person may paste (its JSON). */
export const MAX_SAMPLE_JSON_CHARS = 32 * 1024;
/** A sample's task goes to the model as the first message: a statement, not a document. */
export const MAX_TASK_CHARS = 8_000;
/** A urlMatches pattern at most: a URL's pattern, not a program. */
export const MAX_URL_PATTERN_CHARS = 500;
/** How long loading the samples file may take before the page says it failed. */
export const SAMPLES_LOAD_TIMEOUT_MS = 10_000;
/**
 * How long a selectorText check waits for its element: the run has ended and the page is what it
 * is, so an element that is not there soon is a failed check, not one to wait the default 15 s for.
 */
export const CHECK_TIMEOUT_MS = 5_000;
/** A textContains check reads the whole text: page.text's own cap, not its 90,000 default. */
export const CHECK_MAX_TEXT_CHARS = 2_000_000;
/** What the trace shows of what a check saw (the page's text can be long). */
export const MAX_SAW_CHARS = 300;
/** The text shown on either side of where a textContains check found its text. */
const SAW_CONTEXT_CHARS = 80;

/** The kinds of check, each a key of the check object. */
export const CHECK_KINDS = /** @type {const} */ (['textContains', 'urlMatches', 'selectorText']);

/** A sample id: what the picker and the trace name it by. */
const SAMPLE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const SAMPLE_FIELDS = new Set(['id', 'title', 'task', 'startUrl', 'check']);

/**
 * @typedef {(
 *   | { textContains: string }
 *   | { urlMatches: string }
 *   | { selectorText: { selector: string, text: string } }
 * )} Check
 * @typedef {{ id: string, title: string, task: string, startUrl?: string, check: Check }} Sample
 * @typedef {{ ok: true, sample: Sample } | { ok: false, error: string }} SampleParse
 * @typedef {import('./runnerService.js').ExecuteResult} ExecuteResult
 * @typedef {(method: string, args: Record<string, unknown>) => Promise<ExecuteResult>} Execute
 * @typedef {{ reward: 0 | 1, kind: string, check: string, method: string, saw: string }} CheckOutcome
 */

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isRecord(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A check, or why it is not one: exactly one of the CHECK_KINDS, with its value's shape.
 * @param {unknown} value
 * @returns {{ ok: true, check: Check } | { ok: false, error: string }}
 */
export function parseCheck(value) {
  const kinds = CHECK_KINDS.join(', ');
  if (!isRecord(value))
    return {
      ok: false,
      error: `check must be an object with one of ${kinds}, e.g. {"textContains": "Done"}`,
    };
  const keys = Object.keys(value);
  const unknown = keys.filter((k) => !CHECK_KINDS.some((kind) => kind === k));
  if (unknown.length > 0)
    return { ok: false, error: `unknown check kind ${unknown.join(', ')}: a check is one of ${kinds}` };
  if (keys.length !== 1)
    return { ok: false, error: `check must have exactly one of ${kinds} (it has ${keys.length})` };
  if (typeof value.textContains === 'string') {
    if (value.textContains.trim() === '') return { ok: false, error: 'check.textContains is empty' };
    return { ok: true, check: { textContains: value.textContains } };
  }
  if (typeof value.urlMatches === 'string') {
    const pattern = value.urlMatches;
    if (pattern === '' || pattern.length > MAX_URL_PATTERN_CHARS)
      return {
        ok: false,
        error: `check.urlMatches must be a regular expression of 1 to ${MAX_URL_PATTERN_CHARS} characters`,
      };
    try {
      new RegExp(pattern);
    } catch (error) {
      return { ok: false, error: `check.urlMatches is not a regular expression: ${String(error)}` };
    }
    return { ok: true, check: { urlMatches: pattern } };
  }
  const st = value.selectorText;
  if (isRecord(st)) {
    const extra = Object.keys(st).filter((k) => k !== 'selector' && k !== 'text');
    if (extra.length > 0)
      return {
        ok: false,
        error: `check.selectorText has unknown field(s) ${extra.join(', ')}: it is {selector, text}`,
      };
    if (typeof st.selector !== 'string' || st.selector.trim() === '')
      return { ok: false, error: 'check.selectorText.selector must be a non-empty CSS selector' };
    if (typeof st.text !== 'string') return { ok: false, error: 'check.selectorText.text must be a string' };
    return { ok: true, check: { selectorText: { selector: st.selector, text: st.text } } };
  }
  return {
    ok: false,
    error: `check.${keys[0] ?? ''} has the wrong shape: textContains and urlMatches take a string, selectorText {selector, text}`,
  };
}

/**
 * A sample, or why it is not one (the first thing wrong, said so a person can fix it).
 * @param {unknown} value
 * @returns {SampleParse}
 */
export function parseSample(value) {
  if (!isRecord(value))
    return { ok: false, error: 'a sample is a JSON object: {id, title, task, startUrl?, check}' };
  const extra = Object.keys(value).filter((k) => !SAMPLE_FIELDS.has(k));
  if (extra.length > 0)
    return {
      ok: false,
      error: `unknown field(s) ${extra.join(', ')}: a sample has id, title, task, startUrl (optional) and check`,
    };
  const { id, title, task, startUrl } = value;
  if (typeof id !== 'string' || !SAMPLE_ID.test(id))
    return { ok: false, error: 'id must be 1 to 64 letters, digits, dots, dashes or underscores' };
  const named = `sample ${id}`;
  if (typeof title !== 'string' || title.trim() === '')
    return { ok: false, error: `${named}: title must be a non-empty string` };
  if (typeof task !== 'string' || task.trim() === '')
    return { ok: false, error: `${named}: the task is missing (task must be a non-empty string)` };
  if (task.length > MAX_TASK_CHARS)
    return { ok: false, error: `${named}: the task is longer than ${MAX_TASK_CHARS} characters` };
  if (startUrl !== undefined && (typeof startUrl !== 'string' || !/^https?:\/\/[^/]/.test(startUrl)))
    return { ok: false, error: `${named}: startUrl must be an http(s) URL` };
  if (value.check === undefined)
    return { ok: false, error: `${named}: the check is missing (one of ${CHECK_KINDS.join(', ')})` };
  const check = parseCheck(value.check);
  if (!check.ok) return { ok: false, error: `${named}: ${check.error}` };
  // In the order the file writes them: the picker shows a sample as this JSON.
  /** @type {Sample} */
  const sample =
    typeof startUrl === 'string'
      ? { id, title, task, startUrl, check: check.check }
      : { id, title, task, check: check.check };
  return { ok: true, sample };
}

/**
 * A pasted sample's text: at most MAX_SAMPLE_JSON_CHARS, JSON, a sample.
 * @param {string} text
 * @returns {SampleParse}
 */
export function parseSampleText(text) {
  if (text.length > MAX_SAMPLE_JSON_CHARS)
    return { ok: false, error: `the sample is longer than ${MAX_SAMPLE_JSON_CHARS} characters` };
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `the sample is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return parseSample(value);
}

/**
 * A samples file, `{"samples": [sample, …]}`: the valid samples, and one error for each entry that
 * is not (those are left out). A file over the caps, or not of that shape, gives no sample.
 * @param {string} text
 * @returns {{ samples: Sample[], errors: string[] }}
 */
export function parseSamplesFile(text) {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_SAMPLES_FILE_BYTES)
    return {
      samples: [],
      errors: [`the samples file is ${bytes} bytes, more than ${MAX_SAMPLES_FILE_BYTES}`],
    };
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      samples: [],
      errors: [`the samples file is not JSON: ${error instanceof Error ? error.message : String(error)}`],
    };
  }
  if (!isRecord(value) || !Array.isArray(value.samples))
    return { samples: [], errors: ['the samples file must be {"samples": [ … ]}'] };
  if (value.samples.length > MAX_SAMPLES)
    return {
      samples: [],
      errors: [`the samples file lists ${value.samples.length} samples, more than ${MAX_SAMPLES}`],
    };
  /** @type {Sample[]} */
  const samples = [];
  /** @type {string[]} */
  const errors = [];
  value.samples.forEach((entry, index) => {
    const parsed = parseSample(entry);
    if (!parsed.ok) errors.push(`entry ${index + 1}: ${parsed.error}`);
    else if (samples.some((s) => s.id === parsed.sample.id))
      errors.push(`entry ${index + 1}: id ${parsed.sample.id} is listed twice`);
    else samples.push(parsed.sample);
  });
  return { samples, errors };
}

/**
 * The samples file's text, read up to MAX_SAMPLES_FILE_BYTES (one more byte says it is larger).
 * @param {Response} res
 * @returns {Promise<string>}
 */
export async function readCapped(res) {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_SAMPLES_FILE_BYTES) {
      await reader.cancel();
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

/** @param {string} s */
function fold(s) {
  return s.replace(/\s+/g, ' ').trim();
}

/** @param {string} s */
function excerpt(s) {
  const folded = fold(s);
  return folded.length > MAX_SAW_CHARS ? `${folded.slice(0, MAX_SAW_CHARS)} …` : folded;
}

/**
 * A check in one line, as the trace and the reward line show it.
 * @param {Check} check
 */
export function describeCheck(check) {
  if ('textContains' in check) return `textContains ${JSON.stringify(check.textContains)}`;
  if ('urlMatches' in check) return `urlMatches ${JSON.stringify(check.urlMatches)}`;
  return `selectorText ${JSON.stringify(check.selectorText.selector)} is ${JSON.stringify(check.selectorText.text)}`;
}

/**
 * The reward of a check on the session's final page, through the service's session methods:
 * - textContains: page.text of the whole page (up to CHECK_MAX_TEXT_CHARS) contains the text
 *   (case and runs of whitespace ignored);
 * - urlMatches: the URL of the active page (pages.list) matches the regular expression (JavaScript
 *   syntax, no slashes, case-sensitive; anchor it with ^ and $ to match the whole URL);
 * - selectorText: page.text of the first element the CSS selector matches is the text (runs of
 *   whitespace folded, case kept); no such element within CHECK_TIMEOUT_MS is a failed check.
 * A call that fails gives reward 0, and what it answered is what the check saw.
 * @param {Execute} execute
 * @param {Check} check
 * @returns {Promise<CheckOutcome>}
 */
export async function runCheck(execute, check) {
  const described = describeCheck(check);
  if ('textContains' in check) {
    const r = await execute('page.text', { maxChars: CHECK_MAX_TEXT_CHARS });
    if (!r.ok) return outcome(false, 'textContains', described, 'page.text', r.content);
    const text = fold(textOf(r));
    const needle = fold(check.textContains).toLowerCase();
    const at = text.toLowerCase().indexOf(needle);
    // Where it was found, with some text around it; else how the page's text begins.
    const saw =
      at < 0
        ? `not in the page's ${text.length} characters of text, which begin: ${text}`
        : `found at character ${at}: ${at > SAW_CONTEXT_CHARS ? '… ' : ''}${text.slice(Math.max(0, at - SAW_CONTEXT_CHARS), at + needle.length + SAW_CONTEXT_CHARS)}`;
    return outcome(at >= 0, 'textContains', described, 'page.text', saw);
  }
  if ('urlMatches' in check) {
    const r = await execute('pages.list', {});
    const url = activeUrl(r.details);
    const pass = r.ok && url !== undefined && new RegExp(check.urlMatches).test(url);
    const saw = !r.ok ? r.content : url === undefined ? 'no active page' : `URL ${url}`;
    return outcome(pass, 'urlMatches', described, 'pages.list', saw);
  }
  const { selector, text: expected } = check.selectorText;
  const r = await execute('page.text', { selector: `css=${selector}`, timeout: CHECK_TIMEOUT_MS });
  const text = textOf(r);
  const pass = r.ok && fold(text) === fold(expected);
  return outcome(pass, 'selectorText', described, 'page.text', r.ok ? `element text: ${text}` : r.content);
}

/**
 * @param {boolean} pass
 * @param {string} kind
 * @param {string} check
 * @param {string} method
 * @param {string} saw
 * @returns {CheckOutcome}
 */
function outcome(pass, kind, check, method, saw) {
  return { reward: pass ? 1 : 0, kind, check, method, saw: excerpt(saw) };
}

/** @param {ExecuteResult} r */
function textOf(r) {
  return isRecord(r.details) && typeof r.details.text === 'string' ? r.details.text : r.content;
}

/**
 * The URL of the active page in a pages.list result.
 * @param {unknown} details
 * @returns {string | undefined}
 */
function activeUrl(details) {
  if (!isRecord(details) || !Array.isArray(details.pages)) return undefined;
  for (const p of details.pages)
    if (isRecord(p) && p.active === true && typeof p.url === 'string') return p.url;
  return undefined;
}
