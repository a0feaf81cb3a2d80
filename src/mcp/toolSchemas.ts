import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { MethodInfo } from '../rpc/defineMethod.js';
import { requiredParams } from '../rpc/openrpc.js';
import { BRIEF_PARAM_TEXTS, SHARED_PARAM_TEXTS } from './toolParamTexts.js';

type InputSchema = Tool['inputSchema'];
type JsonObject = Record<string, unknown>;

/**
 * Keywords only a validator needs. Every call is validated against the method's full schema in
 * dispatch, whose error names what is wrong and what is expected, so a model reads the names, types,
 * choices and defaults of the params and pays for nothing else.
 */
const VALIDATION_ONLY: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'additionalProperties',
  'title',
]);

/**
 * The core menu lists a param's choices up to this many; a longer list (session_create's
 * permissions) costs more than its text naming a few, and a wrong choice is answered with the list.
 */
const MAX_BRIEF_ENUM = 8;

/**
 * The param every method takes for idempotent retries (rpc/idempotencyKey.ts, which a transport may
 * not import); toolMenus.test.ts fails if a tool lists it, so a rename there cannot slip past.
 */
const IDEMPOTENCY_PARAM = 'idempotency_key';

/** TypeBox's Record(String, Unknown): any object, which `type: object` alone already says. */
const ANY_KEY_PATTERN = '^(.*)$';

/**
 * Params a model never needs: `headless` must equal the shared browser's mode and `proxy` is always
 * refused (every request goes through the egress proxy). Still accepted when sent, as on /rpc.
 */
const NOT_FOR_MODELS: Readonly<Record<string, readonly string[]>> = {
  'session.create': ['headless', 'proxy'],
};

/**
 * Params the core menu leaves out, though its tools take them: the wait of an action or read on
 * one element (its default is generous, and a TIMEOUT answer says what to do), keys held while
 * hovering, and the pace of typing. The tools of the other groups list every param.
 */
const LEFT_OUT_OF_CORE: Readonly<Record<string, readonly string[]>> = {
  'page.click': ['timeout', 'maxClicks'],
  'page.fill': ['timeout'],
  'page.press': ['timeout'],
  'page.hover': ['timeout', 'modifiers'],
  'page.check': ['timeout'],
  'page.uncheck': ['timeout'],
  'page.select': ['timeout'],
  'page.type': ['timeout', 'delay'],
  'page.text': ['timeout'],
  'page.snapshot': ['timeout'],
  'find.byRole': ['timeout'],
  'find.byText': ['timeout'],
  screenshot: ['timeout'],
  'dialog.handle': ['timeout'],
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `anyOf` of string constants (TypeBox's Union of Literals) as the shorter `enum` it means. */
function asEnum(anyOf: unknown): string[] | undefined {
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const values: string[] = [];
  for (const option of anyOf) {
    if (!isObject(option) || option.type !== 'string' || typeof option.const !== 'string') return undefined;
    if (Object.keys(option).length !== 2) return undefined;
    values.push(option.const);
  }
  return values;
}

/**
 * A param's schema as a model reads it: validation-only keywords dropped, unions of string
 * constants as enums. `brief` also drops the method's descriptions, the defaults, long lists of
 * choices and the fields of objects: the param's short text says what matters and names those
 * fields (toolParamTexts.ts), a param left out takes its default, and the call is validated against
 * the whole schema anyway.
 */
function compact(schema: JsonObject, brief: boolean): JsonObject {
  if (brief && schema.type === 'object') return { type: 'object' };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (brief && (key === 'description' || key === 'default')) continue;
    if (key === 'anyOf') {
      const values = asEnum(value);
      if (values !== undefined) {
        out.type = 'string';
        if (!brief || values.length <= MAX_BRIEF_ENUM) out.enum = values;
        continue;
      }
    }
    if (key === 'patternProperties' && isObject(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === ANY_KEY_PATTERN) continue;
    }
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isObject(sub) ? compact(sub, brief) : sub]),
      );
      continue;
    }
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (isObject(value)) out[key] = compact(value, brief);
    else if (Array.isArray(value)) {
      const items: unknown[] = value;
      out[key] = items.map((v) => (isObject(v) ? compact(v, brief) : v));
    } else out[key] = value;
  }
  return out;
}

/**
 * The input schema of a method's tool. Every tool: the method's params schema without what only a
 * validator needs, without idempotency_key (still accepted: a model retries by reading the answer,
 * a program that needs the key calls /rpc or sends it anyway) and the params no model needs.
 * A tool of the core menu (`brief`) also gets the short param texts of toolParamTexts.ts, since
 * every client sends that menu with every model request; a param without one is named plainly
 * enough by its name, type and default.
 */
export function toolInputSchema(def: MethodInfo, brief: boolean): InputSchema {
  // TypeBox marks schemas with symbol keys; the tool gets plain JSON Schema.
  const params = JSON.parse(JSON.stringify(def.params)) as JsonObject;
  const hidden = new Set([
    IDEMPOTENCY_PARAM,
    ...(NOT_FOR_MODELS[def.name] ?? []),
    ...(brief ? (LEFT_OUT_OF_CORE[def.name] ?? []) : []),
  ]);
  const properties: Record<string, object> = {};
  const source = isObject(params.properties) ? params.properties : {};
  for (const [name, schema] of Object.entries(source)) {
    if (hidden.has(name) || !isObject(schema)) continue;
    const shown = compact(schema, brief);
    if (brief) {
      const text = BRIEF_PARAM_TEXTS[def.name]?.[name] ?? SHARED_PARAM_TEXTS[name];
      properties[name] = text === undefined ? shown : { description: text, ...shown };
    } else properties[name] = shown;
  }
  // A defaulted param may be left out: MCP clients must not demand it (page_goto's waitUntil).
  const required = requiredParams(def.params).filter((name) => !hidden.has(name));
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}
