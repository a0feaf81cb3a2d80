// Finds the fenced code blocks of the README and docs/*.md that a reader would run, by one rule:
//
// - every ```bash / ```sh / ```shell block runs;
// - a ```ts / ```js block runs when it imports something (a complete program, not a fragment);
// - every other block (json, yaml, text …) is never run;
// - `<!-- snippet: not run (reason) -->` as the last line before a block keeps it from running
//   (a service start, Docker, a client this machine does not have); the reason is required;
// - `<!-- snippet: error -32013 -->` says the block shows that error on purpose: it must print it.
//
// Pure: no process, no file system, so the rule has unit tests of its own.

export type SnippetLang = 'bash' | 'ts';

export interface FencedBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word, lower case ('' when there is none). */
  lang: string;
  /** The block's text, without its fences and without the indentation of the opening fence. */
  code: string;
  /** The marker comment on the last non-blank line before the fence, if there is one. */
  marker: SnippetMarker | undefined;
}

export type SnippetMarker =
  | { kind: 'not-run'; reason: string }
  | { kind: 'error'; code: number }
  /** A `<!-- snippet: … -->` comment that says neither of the above: always a mistake. */
  | { kind: 'invalid'; text: string };

export type BlockPlan =
  | { run: true; lang: SnippetLang; expectError: number | undefined }
  | { run: false; reason: string; marked: boolean };

const BASH_LANGS = new Set(['bash', 'sh', 'shell']);
const TS_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

const TS_RUNS = /^\s*import\s/m;

/**
 * Commands that change the checkout or run the whole suite: a block with one of them must be marked
 * `not run`, so that the test never runs it (`npm ci` in a checkout whose node_modules is shared
 * replaces it; `npm test` would run this test inside itself).
 */
const NEVER_RUN =
  /\bnpm\s+(ci|i|install|uninstall|update|test|start|run\s+(?:test|bench|build|generate|lint|format))\b/;

const MARKER = /^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$/;
const NOT_RUN = /^not run \((.+)\)$/;
const ERROR = /^error (-\d+)$/;

export function parseMarker(line: string): SnippetMarker | undefined {
  const found = MARKER.exec(line);
  if (!found) return undefined;
  const text = found[1] ?? '';
  const notRun = NOT_RUN.exec(text);
  if (notRun?.[1]?.trim()) return { kind: 'not-run', reason: notRun[1].trim() };
  const error = ERROR.exec(text);
  if (error?.[1] !== undefined) return { kind: 'error', code: Number(error[1]) };
  return { kind: 'invalid', text };
}

/** Every fenced block of a Markdown text, nested in lists or not. */
export function readFencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  let lastNonBlank: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (!open) {
      if (line.trim() !== '') lastNonBlank = line;
      continue;
    }
    const indent = open[1]?.length ?? 0;
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const inner = lines[j] ?? '';
      const trimmed = inner.trimStart();
      if (trimmed.startsWith(fence) && trimmed.slice(fence.length).trim() === '') break;
      body.push(inner.slice(Math.min(indent, inner.length - inner.trimStart().length)));
    }
    blocks.push({
      line: i + 1,
      lang: (open[3] ?? '').toLowerCase(),
      code: body.join('\n'),
      marker: lastNonBlank === undefined ? undefined : parseMarker(lastNonBlank),
    });
    i = j;
    lastNonBlank = undefined;
  }
  return blocks;
}

/** Whether the harness runs a block, and how; or why not. */
export function planBlock(block: FencedBlock): BlockPlan {
  const lang = BASH_LANGS.has(block.lang) ? 'bash' : TS_LANGS.has(block.lang) ? 'ts' : undefined;
  const selected = lang === 'bash' || (lang === 'ts' && TS_RUNS.test(block.code));
  const marker = block.marker;
  if (marker?.kind === 'invalid') {
    throw new Error(
      `line ${block.line}: "<!-- snippet: ${marker.text} -->" is not a marker: use "not run (reason)" or "error -320xx"`,
    );
  }
  if (marker?.kind === 'not-run') return { run: false, reason: marker.reason, marked: true };
  if (lang === undefined || !selected) {
    if (marker?.kind === 'error') {
      throw new Error(`line ${block.line}: an error marker on a block that is not run`);
    }
    return {
      run: false,
      reason: `a ${block.lang || 'plain'} block that the rule does not run`,
      marked: false,
    };
  }
  const never = NEVER_RUN.exec(block.code);
  if (never) {
    throw new Error(
      `line ${block.line}: "${never[0]}" never runs in the docs test: mark the block <!-- snippet: not run (reason) -->`,
    );
  }
  return { run: true, lang, expectError: marker?.kind === 'error' ? marker.code : undefined };
}

/** JSON-RPC error codes printed in a snippet's output (compact or pretty JSON, or MCP's escaped text). */
export function errorCodesIn(output: string): number[] {
  const codes: number[] = [];
  for (const found of output.matchAll(/\\?"error\\?"\s*:\s*\{\s*\\?"code\\?"\s*:\s*(-?\d+)/g)) {
    codes.push(Number(found[1]));
  }
  return codes;
}

/** Whether the output holds an MCP tool result flagged as an error. */
export function hasMcpError(output: string): boolean {
  return /\\?"isError\\?"\s*:\s*true/.test(output);
}

/**
 * What a bash block says it prints: each `# => text` line, and the `#    text` lines that continue
 * it (aligned under the text). `…` or `...` stands for any run of characters within a line.
 */
export function shownOutputs(code: string): string[] {
  const shown: string[] = [];
  let continuing = false;
  for (const line of code.split('\n')) {
    const first = /^\s*# => (.*)$/.exec(line);
    const more: RegExpExecArray | null = continuing ? /^\s*# {4}(.*)$/.exec(line) : null;
    const text: string | undefined = first?.[1] ?? more?.[1];
    continuing = text !== undefined;
    if (text !== undefined && text.trim() !== '') shown.push(text.trimEnd());
  }
  return shown;
}

/** Whether the output contains a shown line, `…` matching anything within one line. */
export function outputShows(output: string, shown: string): boolean {
  const pattern = shown
    .split(/…|\.\.\./)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^\\n]*');
  return new RegExp(pattern).test(output);
}
