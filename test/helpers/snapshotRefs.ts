// Refs in page.snapshot answers, for the suites that act on them.

/** The ref on the first snapshot line matching `line` (e.g. /button "Greet"/), or an Error showing the snapshot. */
export function refOf(snapshot: string, line: RegExp): string {
  const m = new RegExp(`${line.source}[^\\n]*\\[ref=((?:f\\d+)?e\\d+)\\]`).exec(snapshot);
  if (m?.[1] === undefined) throw new Error(`no ref for ${line.source} in:\n${snapshot}`);
  return m[1];
}
