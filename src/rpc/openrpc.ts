import type { TSchema } from '@sinclair/typebox';
import type { MethodInfo } from './defineMethod.js';
import { ERRORS, ERROR_DESCRIPTIONS, type ErrorName } from '../errors/catalogue.js';
import { titledSchema, typeName } from './schemaTitles.js';

export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description: string };
  servers: OpenRpcServer[];
  methods: OpenRpcMethod[];
  components: { errors: Record<string, { code: number; message: string; data: { description: string } }> };
}

interface OpenRpcServer {
  name: string;
  url: string;
  summary: string;
  description: string;
  variables: Record<string, { default: string; description: string }>;
}

/** One example call of a method as the docs show it: by-name params and the result it answered. */
export interface MethodExample {
  name: string;
  description?: string;
  params: Record<string, unknown>;
  result: unknown;
}

/** Examples by method name: kept apart from the method definitions, checked against their schemas. */
export type MethodExamples = Readonly<Record<string, readonly MethodExample[]>>;

/** OpenRPC's example pairing object: params as named example objects, the result as one. */
interface OpenRpcExamplePairing {
  name: string;
  description?: string;
  params: { name: string; value: unknown }[];
  result: { name: string; value: unknown };
}

interface OpenRpcMethod {
  name: string;
  summary: string;
  description?: string;
  paramStructure: 'by-name';
  params: { name: string; description: string; required: boolean; schema: unknown }[];
  result: { name: string; schema: unknown };
  errors: { $ref: string }[];
  examples: OpenRpcExamplePairing[];
  'x-read-only': boolean;
}

/**
 * The server a caller reaches with the documented defaults (PORT 3337 on HOST 127.0.0.1); host and
 * port are server variables, since a deployment may set either.
 */
export const DEFAULT_SERVER: OpenRpcServer = {
  name: 'local',
  url: 'http://{host}:{port}/rpc',
  summary: 'JSON-RPC 2.0 over HTTP POST (also a WebSocket on the same path)',
  description:
    'The service as `npm start` runs it: http://127.0.0.1:3337/rpc by default. Every call needs the API key in `x-api-key` or `Authorization: Bearer`.',
  variables: {
    host: { default: '127.0.0.1', description: 'The HOST the service binds to.' },
    port: { default: '3337', description: 'The PORT the service listens on.' },
  },
};

/** A plain JSON copy of a TypeBox schema (its symbol keys dropped). */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}

/**
 * The params a caller must give: those the schema requires and gives no default (the validator
 * fills a default in, so OpenRPC and MCP clients must not demand it).
 */
export function requiredParams(params: MethodInfo['params']): string[] {
  return (params.required ?? []).filter((name) => params.properties[name]?.default === undefined);
}

function toExamplePairing(method: string, example: MethodExample): OpenRpcExamplePairing {
  const pairing: OpenRpcExamplePairing = {
    name: example.name,
    params: Object.entries(example.params).map(([name, value]) => ({ name, value })),
    result: { name: `${method} result`, value: example.result },
  };
  if (example.description !== undefined) pairing.description = example.description;
  return pairing;
}

/**
 * One method of the table as an OpenRPC method object: a pure projection. Every schema gets a title
 * (from the method and the path to it) so that code generators name their types after it.
 */
export function toOpenRpcMethod(def: MethodInfo, examples: readonly MethodExample[] = []): OpenRpcMethod {
  const required = new Set(requiredParams(def.params));
  const base = typeName(def.name);
  const method: OpenRpcMethod = {
    name: def.name,
    summary: def.summary,
    paramStructure: 'by-name',
    // Required params first: generators turn by-name params into positional arguments in this
    // order, and a required argument after an optional one does not compile (TS1016).
    params: Object.entries(def.params.properties)
      .map(([name, schema]) => ({
        name,
        description: typeof schema.description === 'string' ? schema.description : name,
        required: required.has(name),
        schema: titledSchema(plain(schema), `${base}${typeName(name)}`),
      }))
      .sort((a, b) => Number(b.required) - Number(a.required)),
    result: { name: `${def.name} result`, schema: titledSchema(plain(def.result), `${base}Result`) },
    errors: def.errors.map((e) => ({ $ref: `#/components/errors/${e}` })),
    examples: examples.map((e) => toExamplePairing(def.name, e)),
    'x-read-only': def.readOnly,
  };
  if (def.description !== undefined) method.description = def.description;
  return method;
}

export function buildOpenRpc(
  methods: readonly MethodInfo[],
  version: string,
  examples: MethodExamples = {},
): OpenRpcDocument {
  const errors: OpenRpcDocument['components']['errors'] = {};
  for (const name of Object.keys(ERRORS) as ErrorName[]) {
    errors[name] = {
      code: ERRORS[name].code,
      message: ERRORS[name].message,
      data: { description: ERROR_DESCRIPTIONS[name] },
    };
  }
  return {
    openrpc: '1.2.6',
    info: {
      title: 'playwright-jsonrpc',
      version,
      description:
        'A browser service for agents: one shared headless Chromium, many isolated sessions, driven through JSON-RPC 2.0 on POST /rpc.',
    },
    servers: [DEFAULT_SERVER],
    methods: methods.map((def) => toOpenRpcMethod(def, examples[def.name] ?? [])),
    components: { errors },
  };
}
