import { describe, expect, it } from 'vitest';
import { pageGoto, pageEvaluate } from '../../src/methods/page/page.js';
import { sessionCreate, sessionList } from '../../src/methods/session/session.js';
import { MAX_PARAMS_DEPTH, ParamsValidator } from '../../src/rpc/validate.js';

const validator = new ParamsValidator([pageGoto, pageEvaluate, sessionCreate, sessionList]);
const SID = 's_00000000-0000-4000-8000-000000000000';

describe('ParamsValidator', () => {
  it('applies the schema defaults', () => {
    const r = validator.validate(pageGoto, { session_id: SID, url: 'http://localhost/' });
    expect(r).toEqual({
      ok: true,
      value: { session_id: SID, url: 'http://localhost/', waitUntil: 'networkidle', timeout: 45_000 },
    });
  });

  it('keeps values the caller gave over the defaults', () => {
    const r = validator.validate(pageGoto, {
      session_id: SID,
      url: 'http://localhost/',
      waitUntil: 'load',
      timeout: 5,
    });
    expect(r.ok && r.value).toMatchObject({ waitUntil: 'load', timeout: 5 });
  });

  it('never mutates the input, and the result shares no object with it', () => {
    const arg = { nested: { list: [1, 2, 3] } };
    const input = { session_id: SID, expression: '(a) => a', arg };
    const frozen = Object.freeze({ session_id: SID, url: 'http://localhost/' });
    const snapshot = structuredClone(input);
    const r = validator.validate(pageEvaluate, input);
    expect(input).toEqual(snapshot);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.arg).toEqual(arg);
      expect(r.value.arg).not.toBe(arg);
    }
    expect(validator.validate(pageGoto, frozen).ok).toBe(true);
    expect(frozen).not.toHaveProperty('waitUntil');
  });

  it('names an unknown argument and lists the expected ones', () => {
    const r = validator.validate(pageGoto, { session_id: SID, url: 'http://localhost/', wait_until: 'load' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe(
      'Invalid params for page.goto: unknown argument(s) wait_until; page.goto takes session_id, url, waitUntil, timeout',
    );
    expect(r.issues).toContainEqual(
      expect.objectContaining({
        keyword: 'additionalProperties',
        params: { additionalProperty: 'wait_until' },
      }),
    );
  });

  it('says a method without params takes no arguments', () => {
    const r = validator.validate(sessionList, { verbose: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('unknown argument(s) verbose; session.list takes no arguments');
  });

  it('reports a missing required argument and a wrong type, all errors at once', () => {
    const r = validator.validate(pageGoto, { session_id: SID, timeout: 'soon', waitUntil: 'never' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toContain('missing required argument url');
    expect(r.message).toContain('timeout must be integer');
    expect(r.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['/', '/timeout', '/waitUntil']));
  });

  it('reports the path of a nested failure', () => {
    const r = validator.validate(sessionCreate, { viewport: { width: 10, height: 600 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toContainEqual(expect.objectContaining({ path: '/viewport/width', keyword: 'minimum' }));
    expect(r.message).toContain('viewport.width must be >= 100');
  });

  it('does not coerce types', () => {
    const r = validator.validate(pageGoto, { session_id: SID, url: 'http://localhost/', timeout: '1000' });
    expect(r.ok).toBe(false);
  });

  it('refuses params nested too deep without overflowing the stack', () => {
    /** An array nested n levels deep: [[[…]]]. */
    const nest = (n: number): unknown => {
      let v: unknown = [];
      for (let i = 1; i < n; i++) v = [v];
      return v;
    };
    // params itself is one level, so arg may be MAX_PARAMS_DEPTH - 1 deep.
    const ok = validator.validate(pageEvaluate, {
      session_id: SID,
      expression: 'a',
      arg: nest(MAX_PARAMS_DEPTH - 1),
    });
    expect(ok.ok).toBe(true);
    const deep = validator.validate(pageEvaluate, {
      session_id: SID,
      expression: 'a',
      arg: nest(MAX_PARAMS_DEPTH),
    });
    expect(deep.ok).toBe(false);
    const bomb = validator.validate(sessionList, { x: nest(200_000) });
    expect(bomb.ok).toBe(false);
    if (!bomb.ok) {
      expect(bomb.message).toContain(`nested more than ${MAX_PARAMS_DEPTH} levels`);
      expect(bomb.issues).toEqual([expect.objectContaining({ path: '/', keyword: 'maxDepth' })]);
    }
  });

  it('throws for a method it did not compile', () => {
    expect(() => new ParamsValidator([sessionList]).validate(pageGoto, {})).toThrow(/no validator/);
  });
});
