import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { MethodInfo } from './defineMethod.js';
import { IDEMPOTENCY_PARAM } from './idempotencyKey.js';

export interface ValidationIssue {
  path: string;
  message: string;
  keyword: string;
  params: Record<string, unknown>;
}

/**
 * Params nested deeper than this are refused before anything recurses over them: structuredClone,
 * JSON.stringify and Playwright's serialiser would otherwise overflow the stack (a RangeError that
 * surfaced as INTERNAL_ERROR) on a few kilobytes of `[[[[…]]]]`.
 */
export const MAX_PARAMS_DEPTH = 128;

/** Iterative, so the check itself cannot overflow: true when a container sits deeper than max. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  const seen = new Set<object>();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const v = item.value;
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    if (item.depth > max) return true;
    seen.add(v);
    for (const child of Object.values(v)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

/**
 * One Ajv instance compiles every params schema once, at start-up. Defaults come from the schema
 * (useDefaults), so handlers never default anything themselves.
 */
export class ParamsValidator {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(methods: readonly MethodInfo[]) {
    const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true });
    for (const def of methods) this.validators.set(def.name, ajv.compile(def.params));
  }

  /** Validates (and fills defaults into) a fresh copy of the params; returns the issues when they fail. */
  validate(
    def: MethodInfo,
    params: Record<string, unknown>,
  ):
    { ok: true; value: Record<string, unknown> } | { ok: false; issues: ValidationIssue[]; message: string } {
    const validator = this.validators.get(def.name);
    if (validator === undefined) throw new Error(`no validator compiled for ${def.name}`);
    if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) {
      const issue: ValidationIssue = {
        path: '/',
        message: `must not be nested more than ${MAX_PARAMS_DEPTH} levels deep`,
        keyword: 'maxDepth',
        params: { limit: MAX_PARAMS_DEPTH },
      };
      return {
        ok: false,
        issues: [issue],
        message: `Invalid params for ${def.name}: params ${issue.message}`,
      };
    }
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
function describe(def: MethodInfo, issues: ValidationIssue[]): string {
  // Every method takes idempotency_key: listing it would hide the method's own arguments.
  const expected = Object.keys(def.params.properties).filter((name) => name !== IDEMPOTENCY_PARAM);
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
