// The OpenRPC document is valid against the OpenRPC meta-schema, documents every method, param and
// error, and the committed generated files (openrpc.json, the client's methods file, the README
// method list) equal what `npm run generate` makes from the method table now.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CLIENT_METHODS_PATH } from '../../scripts/generateClient.js';
import {
  README_END,
  README_START,
  renderClient,
  renderMethodList,
  renderOpenRpc,
} from '../../scripts/generateDocs.js';
import { allMethods } from '../../src/methods/index.js';
import { ERRORS } from '../../src/rpc/errors.js';
import { openRpcDocument } from '../../src/service.js';

const root = new URL('../../', import.meta.url);
const doc = openRpcDocument();

/**
 * An exported schema of a CommonJS package whose typings declare only types; returned without its
 * `$schema`, because both meta-schemas name meta-schemas of their own that Ajv does not ship.
 */
function packageSchema(pkg: string, exportName: string): Record<string, unknown> {
  const mod: unknown = createRequire(import.meta.url)(pkg);
  const schema: unknown = typeof mod === 'object' && mod !== null ? Reflect.get(mod, exportName) : undefined;
  if (typeof schema !== 'object' || schema === null) throw new Error(`${pkg} exports no ${exportName}`);
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function metaSchemaValidator() {
  // strict: false because the meta-schemas use keywords (title on $ref siblings, unknown formats)
  // that Ajv's strict mode would refuse; the check is the document against them, not their style.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const jsonSchemaMeta = packageSchema('@json-schema-tools/meta-schema', 'default');
  // The OpenRPC meta-schema refers to it both with and without the trailing slash of its $id.
  ajv.addSchema({ ...jsonSchemaMeta, $id: 'https://meta.json-schema.tools/' });
  ajv.addSchema({ ...jsonSchemaMeta, $id: 'https://meta.json-schema.tools' });
  return ajv.compile(packageSchema('@open-rpc/meta-schema', 'openrpcDocument'));
}

describe('OpenRPC document', () => {
  it('validates against the OpenRPC meta-schema (@open-rpc/meta-schema)', () => {
    const validate = metaSchemaValidator();
    const valid = validate(JSON.parse(renderOpenRpc()));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the meta-schema check can fail: a method without params is refused', () => {
    const validate = metaSchemaValidator();
    const broken = JSON.parse(renderOpenRpc()) as { methods: Record<string, unknown>[] };
    const first = broken.methods[0];
    expect(first).toBeDefined();
    if (first !== undefined) delete first.params;
    expect(validate(broken)).toBe(false);
  });

  it('lists every method of the table, each with a summary or description', () => {
    expect(doc.methods.map((m) => m.name)).toEqual(allMethods.map((d) => d.name));
    for (const method of doc.methods) {
      const text = `${method.summary} ${method.description ?? ''}`.trim();
      expect(text.length, `${method.name} has no summary or description`).toBeGreaterThan(10);
    }
  });

  it('describes every param in its own words (not the fallback to its name)', () => {
    const missing = doc.methods.flatMap((method) =>
      method.params
        .filter((p) => p.description.trim() === '' || p.description === p.name)
        .map((p) => `${method.name}(${p.name})`),
    );
    expect(missing).toEqual([]);
  });

  it('publishes every error of the catalogue with a description, and methods refer only to those', () => {
    const errors = doc.components.errors;
    expect(Object.keys(errors).sort()).toEqual(Object.keys(ERRORS).sort());
    for (const [name, error] of Object.entries(errors)) {
      expect(error.message.length, name).toBeGreaterThan(0);
      expect(error.data.description.length, name).toBeGreaterThan(10);
    }
    for (const method of doc.methods) {
      for (const ref of method.errors) {
        expect(Object.keys(errors), `${method.name} refers to ${ref.$ref}`).toContain(
          ref.$ref.replace('#/components/errors/', ''),
        );
      }
    }
  });
});

describe('generated files are up to date (run `npm run generate` when this fails)', () => {
  const committed = (path: string): string | undefined => {
    const url = new URL(path, root);
    return existsSync(url) ? readFileSync(url, 'utf8') : undefined;
  };

  it('openrpc.json equals the document generated from the method table', (ctx) => {
    const file = committed('openrpc.json');
    if (file === undefined) ctx.skip('openrpc.json is not committed yet');
    expect(file).toBe(renderOpenRpc());
  });

  it(`${CLIENT_METHODS_PATH} equals the client types generated from the method table`, async () => {
    expect(committed(CLIENT_METHODS_PATH)).toBe(await renderClient());
  });

  it('the README method list equals the one generated from the method table', (ctx) => {
    const readme = committed('README.md');
    const start = readme?.indexOf(README_START) ?? -1;
    const end = readme?.indexOf(README_END) ?? -1;
    if (readme === undefined || start < 0 || end < start)
      ctx.skip('README.md has no generated method list yet');
    const block = readme?.slice(start + README_START.length, end).trim();
    expect(block).toBe(renderMethodList());
  });
});
