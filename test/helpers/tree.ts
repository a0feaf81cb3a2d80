/** An object node of parsed YAML or JSON. */
export type Node = Record<string, unknown>;

/** The value at `path` in a parsed document; undefined where the path leaves the tree. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Node)[key];
  }
  return node;
}
