/**
 * A small JSON Schema → TypeScript emitter for the schema shapes the method table uses (TypeBox
 * output): objects, strings, integers, numbers, booleans, null, const/enum literal unions, anyOf /
 * oneOf unions, allOf intersections, arrays and tuples, records, and unknown. A shape it does not know
 * ($ref, not, if/then/else …) stops the generator with the schema path, rather than degrading to
 * `unknown` without anyone noticing.
 */

/** `input`: the type a caller sends (a property with a default may be left out); `output`: what comes back. */
export type EmitMode = 'input' | 'output';

type Schema = Record<string, unknown>;

/** Keywords that only constrain or annotate a value: they do not change its TypeScript type. */
const IGNORED = new Set([
  '$schema',
  '$id',
  'id',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  // Key constraints (e.g. a MIME type pattern): a TypeScript string key carries none of them.
  'propertyNames',
  'contentEncoding',
  'contentMediaType',
]);

/** Keywords this emitter turns into types. */
const HANDLED = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'allOf',
  'items',
  'additionalItems',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
]);

export class UnsupportedSchemaError extends Error {
  constructor(path: string, detail: string) {
    super(`cannot emit a TypeScript type for ${path}: ${detail}`);
    this.name = 'UnsupportedSchemaError';
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript accepts it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A JSDoc block for a description (a closing comment marker inside it is escaped); empty when none. */
export function jsDoc(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '';
  const lines = text
    .trim()
    .replace(/\*\//g, '*\\/')
    .split(/\r?\n/)
    .map((l) => l.trimEnd());
  if (lines.length === 1) return `/** ${lines[0]} */\n`;
  return `/**\n${lines.map((l) => (l === '' ? ' *' : ` * ${l}`)).join('\n')}\n */\n`;
}

/** A JSON value as a TypeScript literal type. */
function literal(value: unknown, path: string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  throw new UnsupportedSchemaError(path, `const/enum value ${JSON.stringify(value)} is not a primitive`);
}

/** The members of a union or intersection, deduplicated, in order. */
function join(parts: string[], separator: ' | ' | ' & '): string {
  const unique = [...new Set(parts)];
  if (unique.length === 0) return 'never';
  if (unique.length === 1) return unique[0] ?? 'never';
  return unique.map((p) => (p.includes(' | ') || p.includes(' & ') ? `(${p})` : p)).join(separator);
}

/** An array of T: `T[]` for a simple T, `Array<…>` for anything with spaces in it. */
function arrayOf(item: string): string {
  return /^[A-Za-z0-9_$.<>[\]]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
}

function objectType(schema: Schema, mode: EmitMode, path: string): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const members: string[] = [];
  for (const [name, value] of Object.entries(properties)) {
    if (!isSchema(value))
      throw new UnsupportedSchemaError(`${path}.${name}`, 'property schema is not an object');
    // Defaults are applied by the service's validator, so a caller may leave such a property out.
    const optional = !required.has(name) || (mode === 'input' && value.default !== undefined);
    const description = typeof value.description === 'string' ? value.description : undefined;
    const type = toTypeScript(value, mode, `${path}.${name}`);
    members.push(`${jsDoc(description)}${propertyKey(name)}${optional ? '?' : ''}: ${type};`);
  }

  const extra: string[] = [];
  if (isSchema(schema.patternProperties)) {
    for (const [pattern, value] of Object.entries(schema.patternProperties)) {
      if (!isSchema(value)) throw new UnsupportedSchemaError(`${path}[${pattern}]`, 'not a schema');
      extra.push(toTypeScript(value, mode, `${path}[${pattern}]`));
    }
  }
  if (isSchema(schema.additionalProperties)) {
    extra.push(toTypeScript(schema.additionalProperties, mode, `${path}[*]`));
  }
  const closed = schema.additionalProperties === false;

  if (members.length === 0) {
    if (extra.length > 0) return `Record<string, ${join(extra, ' | ')}>`;
    return closed ? 'Record<string, never>' : 'Record<string, unknown>';
  }
  // A declared property must be assignable to the index signature: keep that one open.
  if (extra.length > 0) members.push('[key: string]: unknown;');
  return `{\n${members.join('\n')}\n}`;
}

function arrayType(schema: Schema, mode: EmitMode, path: string): string {
  const { items } = schema;
  if (items === undefined) return 'unknown[]';
  if (Array.isArray(items)) {
    const tuple = items.map((item, i) => {
      if (!isSchema(item)) throw new UnsupportedSchemaError(`${path}[${i}]`, 'tuple item is not a schema');
      return toTypeScript(item, mode, `${path}[${i}]`);
    });
    return `[${tuple.join(', ')}]`;
  }
  if (!isSchema(items)) throw new UnsupportedSchemaError(`${path}[]`, 'items is not a schema');
  return arrayOf(toTypeScript(items, mode, `${path}[]`));
}

function typeKeyword(type: string, schema: Schema, mode: EmitMode, path: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, mode, path);
    case 'object':
      return objectType(schema, mode, path);
    default:
      throw new UnsupportedSchemaError(path, `unknown type ${JSON.stringify(type)}`);
  }
}

/** The TypeScript type of a schema, as source text. */
export function toTypeScript(schema: Schema, mode: EmitMode, path = '#'): string {
  for (const key of Object.keys(schema)) {
    if (!IGNORED.has(key) && !HANDLED.has(key) && !key.startsWith('x-')) {
      throw new UnsupportedSchemaError(path, `keyword ${key} is not supported by scripts/jsonSchemaToTs.ts`);
    }
  }
  if (schema.const !== undefined) return literal(schema.const, path);
  if (Array.isArray(schema.enum))
    return join(
      schema.enum.map((v) => literal(v, path)),
      ' | ',
    );
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members)) {
      return join(
        members.map((m, i) => {
          if (!isSchema(m)) throw new UnsupportedSchemaError(`${path}.${key}[${i}]`, 'not a schema');
          return toTypeScript(m, mode, `${path}.${key}[${i}]`);
        }),
        ' | ',
      );
    }
  }
  if (Array.isArray(schema.allOf)) {
    return join(
      schema.allOf.map((m, i) => {
        if (!isSchema(m)) throw new UnsupportedSchemaError(`${path}.allOf[${i}]`, 'not a schema');
        return toTypeScript(m, mode, `${path}.allOf[${i}]`);
      }),
      ' & ',
    );
  }
  const { type } = schema;
  if (typeof type === 'string') return typeKeyword(type, schema, mode, path);
  if (Array.isArray(type))
    return join(
      type.map((t) => typeKeyword(String(t), schema, mode, path)),
      ' | ',
    );
  if (schema.properties !== undefined) return objectType(schema, mode, path);
  // No type, no combinator: TypeBox's Unknown and Any, i.e. any JSON value.
  return 'unknown';
}
