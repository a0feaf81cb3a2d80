// Reads the lines of Playwright's AI aria snapshot: a YAML-ish tree, one element per line, children
// indented two spaces. Views (interactive, diffs) and searches (find.*) work on these lines rather
// than on the page, so they see exactly what the snapshot showed, refs and frames included.

/** One line of a snapshot: `- role "name" [attr] [ref=e5]: value`, or `- text: …`, `- /url: …`. */
export interface SnapshotLine {
  /** The line as the snapshot has it, without its indentation. */
  text: string;
  /** Nesting depth: 0 for the top element, 1 for its children … */
  depth: number;
  /** The role (button, link, heading …), `text` for a text node, `/url` and the like for properties. */
  role: string;
  /** The accessible name, when the line has one. */
  name: string | undefined;
  /** Attributes in brackets other than ref: checked, level=2, cursor=pointer … */
  attrs: string[];
  ref: string | undefined;
  /** What follows the colon: an input's value, a text node's text, a property's value. */
  value: string | undefined;
  /** The index of the nearest enclosing line, or -1 at the top. */
  parent: number;
}

/** The line that stands for lines a view left out below or beside a line it shows. */
export function elidedLine(indent: number, count: number, where = 'more'): string {
  return `${'  '.repeat(indent)}- … ${count} ${where} line${count === 1 ? '' : 's'}`;
}

const LINE = /^( *)- (.*)$/;

/** Parses a snapshot into lines; a line that is not an element (a wrapped value) is skipped. */
export function parseSnapshot(snapshot: string): SnapshotLine[] {
  const lines: SnapshotLine[] = [];
  const open: number[] = []; // open[depth] = index of the last line at that depth
  for (const raw of snapshot.split('\n')) {
    const m = LINE.exec(raw);
    if (m === null) continue;
    const depth = (m[1] ?? '').length / 2;
    const { key, value } = splitEntry(m[2] ?? '');
    const head = parseKey(key);
    open.length = depth;
    const parent = depth > 0 ? (open[depth - 1] ?? -1) : -1;
    open[depth] = lines.length;
    lines.push({ text: (m[2] ?? '').trim(), depth, parent, value, ...head });
  }
  return lines;
}

/** Splits `key: value` (either side possibly YAML-quoted) into the unquoted key and value. */
function splitEntry(entry: string): { key: string; value: string | undefined } {
  let key: string;
  let rest: string;
  if (entry.startsWith("'") || entry.startsWith('"')) {
    const end = closingQuote(entry);
    key = unquoteYaml(entry.slice(0, end + 1));
    rest = entry.slice(end + 1);
  } else {
    // The key ends at the first ": " (or a final ":") outside a quoted name.
    const colon = keyColon(entry);
    key = colon === -1 ? entry : entry.slice(0, colon);
    rest = colon === -1 ? '' : entry.slice(colon);
  }
  const value = rest.startsWith(': ') ? unquoteYaml(rest.slice(2).trim()) : undefined;
  return { key, value };
}

function closingQuote(s: string): number {
  const quote = s[0];
  for (let i = 1; i < s.length; i++) {
    if (quote === "'" && s[i] === "'") {
      if (s[i + 1] === "'") i++;
      else return i;
    } else if (quote === '"' && s[i] === '\\') i++;
    else if (quote === '"' && s[i] === '"') return i;
  }
  return s.length - 1;
}

function keyColon(s: string): number {
  let inName = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '"') inName = !inName;
    else if (c === ':' && !inName && (i === s.length - 1 || s[i + 1] === ' ')) return i;
  }
  return -1;
}

/** A YAML-quoted snapshot string ('…' or "…") as the text it stands for; anything else as it is. */
export function unquoteYaml(s: string): string {
  if (s.length >= 2 && s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try {
      return String(JSON.parse(s));
    } catch {
      // Not JSON-escaped after all: the text between the quotes is the best reading.
      return s.slice(1, -1);
    }
  }
  return s;
}

const KEY = /^(\S+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]*\])*)$/;

function parseKey(key: string): Pick<SnapshotLine, 'role' | 'name' | 'attrs' | 'ref'> {
  const m = KEY.exec(key);
  if (m === null) return { role: key.split(' ')[0] ?? key, name: undefined, attrs: [], ref: undefined };
  const attrs: string[] = [];
  let ref: string | undefined;
  for (const [, attr] of (m[3] ?? '').matchAll(/\[([^\]]*)\]/g)) {
    if (attr === undefined) continue;
    if (attr.startsWith('ref=')) ref = attr.slice(4);
    else attrs.push(attr);
  }
  const name = m[2] === undefined ? undefined : unquoteYaml(`"${m[2]}"`);
  return { role: m[1] ?? key, name, attrs, ref };
}
