// Titles for the schemas of the OpenRPC document. Code generators (@open-rpc/generator through
// @open-rpc/typings) name a type after its schema's title and, without one, after a hash of its
// contents (`StringDoaGddGA`); a title made of the method, the param and the path to the schema
// gives names a reader can follow (`PageGotoWaitUntil`, `SessionListResultSessionsItem`).

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An identifier in PascalCase: `page.goto` → `PageGoto`, `session_id` → `SessionId`, `2d` → `T2d`. */
export function typeName(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const name = words.map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`).join('');
  return /^[A-Za-z]/.test(name) ? name : `T${name}`;
}

/** The part of a union member's title that tells it from its siblings: its constant, or its type. */
function memberName(member: unknown, index: number): string {
  if (isObject(member)) {
    if (typeof member.const === 'string' && member.const !== '') return typeName(member.const);
    if (typeof member.const === 'number' || typeof member.const === 'boolean')
      return `Is${typeName(String(member.const))}`;
    if (typeof member.type === 'string') return typeName(member.type);
  }
  return `Option${index + 1}`;
}

function titledUnion(members: unknown[], title: string): unknown[] {
  const names = members.map(memberName);
  return members.map((member, i) => {
    const name = names[i] ?? `Option${i + 1}`;
    const unique = names.indexOf(name) === i && names.lastIndexOf(name) === i;
    return titledSchema(member, `${title}${unique ? name : `Option${i + 1}`}`);
  });
}

function titledMap(map: unknown, title: string, key: (name: string, index: number) => string): unknown {
  if (!isObject(map)) return map;
  return Object.fromEntries(
    Object.entries(map).map(([name, s], i) => [name, titledSchema(s, `${title}${key(name, i)}`)]),
  );
}

/**
 * A copy of a JSON Schema in which every schema object (properties, items, union members, maps)
 * has a title derived from `title` and its path; titles already there are kept.
 */
export function titledSchema(schema: unknown, title: string): unknown {
  if (!isObject(schema)) return schema;
  const out: Json = { ...schema };
  if (typeof out.title !== 'string') out.title = title;
  const own = String(out.title);
  if (isObject(out.properties)) out.properties = titledMap(out.properties, own, (name) => typeName(name));
  if (isObject(out.patternProperties))
    out.patternProperties = titledMap(out.patternProperties, own, (_name, i) =>
      i === 0 ? 'Value' : `Value${i + 1}`,
    );
  if (isObject(out.additionalProperties))
    out.additionalProperties = titledSchema(out.additionalProperties, `${own}Value`);
  if (Array.isArray(out.items)) out.items = out.items.map((s, i) => titledSchema(s, `${own}Item${i + 1}`));
  else if (isObject(out.items)) out.items = titledSchema(out.items, `${own}Item`);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members = out[key];
    if (Array.isArray(members)) out[key] = titledUnion(members, own);
  }
  return out;
}
