import type { TSchema } from '@sinclair/typebox';
import type { MethodInfo } from './defineMethod.js';
import { ERRORS, ERROR_DESCRIPTIONS, type ErrorName } from '../errors/catalogue.js';

export interface OpenRpcDocument {
  openrpc: string;
  info: { title: string; version: string; description: string };
  methods: OpenRpcMethod[];
  components: { errors: Record<string, { code: number; message: string; data: { description: string } }> };
}

interface OpenRpcMethod {
  name: string;
  summary: string;
  description?: string;
  paramStructure: 'by-name';
  params: { name: string; description: string; required: boolean; schema: unknown }[];
  result: { name: string; schema: unknown };
  errors: { $ref: string }[];
  'x-read-only': boolean;
}

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

/** One method of the table as an OpenRPC method object: a pure projection. */
export function toOpenRpcMethod(def: MethodInfo): OpenRpcMethod {
  const required = new Set(requiredParams(def.params));
  const method: OpenRpcMethod = {
    name: def.name,
    summary: def.summary,
    paramStructure: 'by-name',
    params: Object.entries(def.params.properties).map(([name, schema]) => ({
      name,
      description: typeof schema.description === 'string' ? schema.description : name,
      required: required.has(name),
      schema: plain(schema),
    })),
    result: { name: 'result', schema: plain(def.result) },
    errors: def.errors.map((e) => ({ $ref: `#/components/errors/${e}` })),
    'x-read-only': def.readOnly,
  };
  if (def.description !== undefined) method.description = def.description;
  return method;
}

export function buildOpenRpc(methods: readonly MethodInfo[], version: string): OpenRpcDocument {
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
    methods: methods.map(toOpenRpcMethod),
    components: { errors },
  };
}
