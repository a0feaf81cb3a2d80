// The examples published in openrpc.json: every method of the table has at least one, each names
// only methods that exist, its params pass the service's own params validator and its result the
// method's result schema, so an example cannot drift from the method it shows.
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { allMethods } from '../../src/methods/index.js';
import { methodExamples } from '../../src/methods/examples/methodExamples.js';
import { ParamsValidator } from '../../src/rpc/validate.js';

const params = new ParamsValidator(allMethods);
// strict: false because result schemas are never compiled by the service itself; the check is the
// examples against them, and unknown keywords must not stop it.
const ajv = new Ajv({ allErrors: true, strict: false });

describe('method examples', () => {
  it('every method of the table has at least one example', () => {
    const missing = allMethods
      .filter((def) => (methodExamples[def.name] ?? []).length === 0)
      .map((d) => d.name);
    expect(missing).toEqual([]);
  });

  it('examples name only methods of the table', () => {
    const names = new Set(allMethods.map((d) => d.name));
    expect(Object.keys(methodExamples).filter((name) => !names.has(name))).toEqual([]);
  });

  for (const def of allMethods) {
    it(`${def.name}: each example's params and result validate against its schemas`, () => {
      const validateResult = ajv.compile(def.result);
      for (const example of methodExamples[def.name] ?? []) {
        const checked = params.validate(def, example.params);
        expect(checked.ok ? [] : checked.issues, `${def.name} "${example.name}" params`).toEqual([]);
        validateResult(example.result);
        expect(validateResult.errors ?? [], `${def.name} "${example.name}" result`).toEqual([]);
      }
    });
  }

  it('the check can fail: a param the method does not take is refused', () => {
    const goto = allMethods.find((d) => d.name === 'page.goto');
    expect(goto).toBeDefined();
    if (goto === undefined) return;
    expect(params.validate(goto, { session_id: 's_x', url: 'http://127.0.0.1/', nope: 1 }).ok).toBe(false);
  });
});
