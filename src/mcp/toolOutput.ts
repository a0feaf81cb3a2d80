import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { MethodInfo } from '../rpc/defineMethod.js';
import { RESOURCE_SCHEMA, binaryFieldOf, binaryResource } from './binaryResults.js';
import { OMITTED_SCHEMA, fitToBudget } from './resultBudget.js';

type OutputSchema = NonNullable<Tool['outputSchema']>;
type JsonObject = Record<string, unknown>;

/** The method whose answer is an image: its base64 becomes image content, the rest structured metadata. */
const IMAGE_METHOD = 'screenshot';
/** Where a result that is not an object goes in structuredContent (MCP wants an object there). */
const WRAPPED_KEY = 'answer';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain JSON copy of a TypeBox schema (its symbol keys dropped). */
function plain(schema: unknown): JsonObject {
  const copy = JSON.parse(JSON.stringify(schema ?? {})) as unknown;
  return isObject(copy) ? copy : {};
}

/**
 * The output schema of a method's tool: its result schema as plain JSON Schema (MCP requires an
 * object at the root: a result that may be anything is wrapped under `answer`), without the
 * screenshot's base64 (it travels as image content) or a file's bytes (an embedded resource, with
 * `_resource` in their place), plus the optional `_omitted` of a cut answer.
 */
export function outputSchemaOf(def: MethodInfo): OutputSchema {
  const result = plain(def.result);
  const schema: JsonObject =
    result.type === 'object'
      ? result
      : { type: 'object', required: [WRAPPED_KEY], properties: { [WRAPPED_KEY]: result } };
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  let required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  const moved = def.name === IMAGE_METHOD ? 'base64' : binaryFieldOf(def.name);
  if (moved !== undefined) {
    delete properties[moved];
    required = required.filter((name) => name !== moved);
  }
  if (binaryFieldOf(def.name) !== undefined) properties._resource = RESOURCE_SCHEMA;
  properties._omitted = OMITTED_SCHEMA;
  return { ...schema, type: 'object', properties, required } as OutputSchema;
}

/**
 * A method's result as a tool result: structuredContent that validates against the tool's output
 * schema, and the same JSON in a text part (the MCP spec asks for it, for clients that read only
 * content; a client hands its model one or the other). A screenshot is image content plus its
 * metadata; a file (a PDF, a trace, a download, a HAR) is an embedded resource plus the rest of the
 * result and `_resource`, so its bytes never meet the text budget and arrive whole. An answer over
 * the budget is cut, and `_omitted` (first, so a model reads it first) says what went and how to get
 * more.
 */
export function toolResult(def: MethodInfo, result: unknown, args: JsonObject): CallToolResult {
  let structured: JsonObject = isObject(result) ? { ...result } : { [WRAPPED_KEY]: result ?? null };
  const content: CallToolResult['content'] = [];
  if (def.name === IMAGE_METHOD && typeof structured.base64 === 'string') {
    const mimeType = typeof structured.mime === 'string' ? structured.mime : 'image/png';
    content.push({ type: 'image', data: structured.base64, mimeType });
    delete structured.base64;
  }
  const binary = binaryResource(def.name, structured, args);
  if (binary !== undefined) {
    content.push(binary.resource);
    structured = binary.rest;
  }
  const { value, omitted } = fitToBudget(def.name, structured);
  const answer: JsonObject = {
    ...(omitted === undefined ? {} : { _omitted: omitted }),
    ...(binary === undefined ? {} : { _resource: binary.note }),
    ...(value as JsonObject),
  };
  content.push({ type: 'text', text: JSON.stringify(answer) });
  return { content, structuredContent: answer };
}
