import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { MethodDefinition } from './defineMethod.js';

export interface ValidationIssue {
  path: string;
  message: string;
  keyword: string;
  params: Record<string, unknown>;
}

/**
 * One Ajv instance compiles every params schema once, at start-up. Defaults come from the schema
 * (useDefaults), so handlers never default anything themselves.
 */
export class ParamsValidator {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(methods: readonly MethodDefinition[]) {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true });
    for (const def of methods) this.validators.set(def.name, ajv.compile(def.params));
  }

  /** Validates (and fills defaults into) a fresh copy of the params; returns the issues when they fail. */
  validate(
    def: MethodDefinition,
    params: Record<string, unknown>,
  ):
    { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[]; message: string } {
    const validator = this.validators.get(def.name);
    if (validator === undefined) throw new Error(`no validator compiled for ${def.name}`);
    const value = structuredClone(params);
    if (validator(value)) return { ok: true, value };
    const issues = (validator.errors ?? []).map(toIssue);
    return { ok: false, issues, message: describe(def, issues) };
  }
}

function toIssue(e: ErrorObject): ValidationIssue {
  return {
    path: e.instancePath || '/',
    message: e.message ?? 'is invalid',
    keyword: e.keyword,
    params: e.params,
  };
}

/** One sentence a caller can act on: names the unknown arguments and lists the expected ones. */
function describe(def: MethodDefinition, issues: ValidationIssue[]): string {
  const expected = Object.keys(def.params.properties);
  const unknown = issues
    .filter((i) => i.keyword === 'additionalProperties')
    .map((i) => String(i.params.additionalProperty));
  const parts: string[] = [];
  if (unknown.length > 0)
    parts.push(
      `unknown argument(s) ${unknown.join(', ')}; ${def.name} takes ${expected.join(', ') || 'no arguments'}`,
    );
  for (const i of issues) {
    if (i.keyword === 'additionalProperties') continue;
    if (i.keyword === 'required') parts.push(`missing required argument ${String(i.params.missingProperty)}`);
    else parts.push(`${i.path === '/' ? 'params' : i.path.slice(1).replace(/\//g, '.')} ${i.message}`);
  }
  return `Invalid params for ${def.name}: ${[...new Set(parts)].join('; ')}`;
}
