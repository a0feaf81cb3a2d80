// The JSON Schema → TypeScript emitter behind client/src/methods.generated.ts (scripts/jsonSchemaToTs.ts).
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { renderClientSource, typeBaseName } from '../../scripts/generateClient.js';
import { jsDoc, toTypeScript, UnsupportedSchemaError } from '../../scripts/jsonSchemaToTs.js';
import { defineMethod } from '../../src/methods/defineSessionMethod.js';

/** A TypeBox schema as JSON (what the OpenRPC document holds), emitted as one line. */
function emit(schema: unknown, mode: 'input' | 'output' = 'output'): string {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return toTypeScript(plain, mode).replace(/\s*\n\s*/g, ' ');
}

describe('JSON Schema → TypeScript', () => {
  it('emits the primitive types, null and unknown', () => {
    expect(emit(Type.String({ minLength: 1 }))).toBe('string');
    expect(emit(Type.Integer({ maximum: 5 }))).toBe('number');
    expect(emit(Type.Number())).toBe('number');
    expect(emit(Type.Boolean())).toBe('boolean');
    expect(emit(Type.Null())).toBe('null');
    expect(emit(Type.Unknown({ description: 'anything' }))).toBe('unknown');
    expect(emit({ type: ['string', 'null'] })).toBe('string | null');
  });

  it('emits literal unions, unions with null, enums and intersections', () => {
    expect(emit(Type.Union([Type.Literal('a'), Type.Literal("it's")]))).toBe("'a' | 'it\\'s'");
    expect(emit(Type.Union([Type.Integer(), Type.Null()]))).toBe('number | null');
    expect(emit({ enum: [1, true, null] })).toBe('1 | true | null');
    expect(emit({ allOf: [{ type: 'string' }, { type: 'string' }] })).toBe('string');
  });

  it('emits arrays, tuples and records', () => {
    expect(emit(Type.Array(Type.String()))).toBe('string[]');
    expect(emit(Type.Array(Type.Union([Type.Literal('x'), Type.Literal('y')])))).toBe("Array<'x' | 'y'>");
    expect(emit(Type.Tuple([Type.String(), Type.Integer()]))).toBe('[string, number]');
    expect(emit(Type.Record(Type.String(), Type.Integer()))).toBe('Record<string, number>');
    expect(emit({ type: 'array' })).toBe('unknown[]');
  });

  it('makes a defaulted property optional for input but not for output', () => {
    const schema = Type.Object({
      a: Type.String(),
      b: Type.Integer({ default: 3 }),
      c: Type.Optional(Type.Boolean()),
      'd-e': Type.String(),
    });
    expect(emit(schema, 'input')).toBe("{ a: string; b?: number; c?: boolean; 'd-e': string; }");
    expect(emit(schema, 'output')).toBe("{ a: string; b: number; c?: boolean; 'd-e': string; }");
    expect(emit(Type.Object({}, { additionalProperties: false }))).toBe('Record<string, never>');
    expect(emit(Type.Object({}))).toBe('Record<string, unknown>');
  });

  it('writes descriptions as JSDoc, safe against a closing comment marker', () => {
    expect(emit(Type.Object({ a: Type.String({ description: 'The a.' }) }))).toBe(
      '{ /** The a. */ a: string; }',
    );
    expect(jsDoc('ends */ early')).toBe('/** ends *\\/ early */\n');
    expect(jsDoc('one\ntwo')).toBe('/**\n * one\n * two\n */\n');
    expect(jsDoc(undefined)).toBe('');
  });

  it('refuses a shape it does not know, naming where it is', () => {
    expect(() => toTypeScript({ $ref: '#/definitions/x' }, 'output', 'm params')).toThrow(
      UnsupportedSchemaError,
    );
    expect(() => toTypeScript({ not: { type: 'string' } }, 'output', 'm params')).toThrow(/m params.*not/);
    expect(() => toTypeScript({ type: 'date' }, 'output')).toThrow(/unknown type/);
  });
});

describe('client source generator', () => {
  const make = (name: string) =>
    defineMethod({
      name,
      summary: 'test',
      params: {},
      result: Type.Object({ ok: Type.Boolean() }),
      errors: [],
      readOnly: true,
      handler: async () => ({ ok: true }),
    });

  it('names types after the method', () => {
    expect(typeBaseName('page.goto')).toBe('PageGoto');
    expect(typeBaseName('find.byRole')).toBe('FindByRole');
    expect(typeBaseName('agents.configureLLM')).toBe('AgentsConfigureLLM');
    expect(typeBaseName('screenshot')).toBe('Screenshot');
  });

  it('nests namespaces of any depth and binds each leaf to its method name', () => {
    const source = renderClientSource([make('a.b.c'), make('a.d'), make('top')]);
    expect(source).toContain("c: (params, options) => call('a.b.c', params, options),");
    expect(source).toContain("top: (params, options) => call('top', params, options),");
    expect(source).toContain(
      "export const READ_ONLY_METHODS: readonly MethodName[] = ['a.b.c', 'a.d', 'top'];",
    );
  });

  it('refuses names that collide with a namespace or with the client itself', () => {
    expect(() => renderClientSource([make('page'), make('page.goto')])).toThrow(/collides/);
    expect(() => renderClientSource([make('page.goto'), make('page')])).toThrow(/collides/);
    expect(() => renderClientSource([make('call.x')])).toThrow(/client's own member/);
    expect(() => renderClientSource([make('a.b'), make('a_b')])).toThrow(/type name AB/);
  });
});
