// The OpenRPC document is valid against the OpenRPC meta-schema, documents every method, param and
// error, and the committed generated files (openrpc.json, the client's methods file, and the pages
// docs/methods.md, docs/errors.md, docs/configuration.md) equal what `npm run generate` makes from
// the tables now.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CLIENT_METHODS_PATH } from '../../scripts/generateClient.js';
import {
  headingAnchor,
  renderClient,
  renderConfigDoc,
  renderDocPages,
  renderErrorsDoc,
  renderMethodsDoc,
  renderOpenRpc,
} from '../../scripts/generateDocs.js';
import { CONFIG_GROUPS, CONFIG_KEYS } from '../../src/config/configKeys.js';
import { allMethods } from '../../src/methods/index.js';
import { ERRORS, ERROR_DESCRIPTIONS } from '../../src/errors/catalogue.js';
import { methodExamples } from '../../src/methods/examples/methodExamples.js';
import { DEFAULT_SERVER } from '../../src/rpc/openrpc.js';
import { titledSchema, typeName } from '../../src/rpc/schemaTitles.js';
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

/** Every schema object in a schema, with its path (properties, items, unions, maps). */
function schemasIn(schema: unknown, path: string): { path: string; schema: Record<string, unknown> }[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const out = [{ path, schema: s }];
  const children = (value: unknown, at: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => out.push(...schemasIn(v, `${at}[${i}]`)));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) out.push(...schemasIn(v, `${at}.${k}`));
  };
  children(s.properties, `${path}.properties`);
  children(s.patternProperties, `${path}.patternProperties`);
  for (const key of ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf']) {
    const value = s[key];
    if (Array.isArray(value)) children(value, `${path}.${key}`);
    else out.push(...schemasIn(value, `${path}.${key}`));
  }
  return out;
}

describe('OpenRPC document for code generators', () => {
  it('every schema has a title that is an identifier (generators name their types after it)', () => {
    const untitled: string[] = [];
    for (const method of doc.methods) {
      const all = [
        ...method.params.flatMap((p) => schemasIn(p.schema, `${method.name}(${p.name})`)),
        ...schemasIn(method.result.schema, `${method.name} result`),
      ];
      for (const { path, schema } of all)
        if (typeof schema.title !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(schema.title))
          untitled.push(path);
    }
    expect(untitled).toEqual([]);
  });

  it('titles are made from the method, the param and the path', () => {
    const goto = doc.methods.find((m) => m.name === 'page.goto');
    expect(goto?.params.find((p) => p.name === 'waitUntil')?.schema).toMatchObject({
      title: 'PageGotoWaitUntil',
      anyOf: [{ title: 'PageGotoWaitUntilLoad' }, { title: 'PageGotoWaitUntilDomcontentloaded' }, {}, {}],
    });
    expect(goto?.result.schema).toMatchObject({ title: 'PageGotoResult' });
    expect(typeName('session_id')).toBe('SessionId');
    expect(typeName('2d')).toBe('T2d');
    expect(titledSchema({ title: 'Kept', type: 'string' }, 'Other')).toEqual({
      title: 'Kept',
      type: 'string',
    });
    expect(titledSchema({ type: 'array', items: { type: 'string' } }, 'List')).toEqual({
      title: 'List',
      type: 'array',
      items: { title: 'ListItem', type: 'string' },
    });
  });

  it('required params come first (generators make them positional arguments in this order)', () => {
    for (const method of doc.methods) {
      const flags = method.params.map((p) => p.required);
      expect(flags, method.name).toEqual([...flags].sort((a, b) => Number(b) - Number(a)));
    }
  });

  it("no description or summary holds '*/' (generators copy them into /** */ comments)", () => {
    const text = JSON.stringify(doc.methods, (key, value: unknown) =>
      key === 'pattern' ? undefined : value,
    );
    const found = [...text.matchAll(/"(?:description|summary)":"((?:[^"\\]|\\.)*)"/g)]
      .map((m) => m[1] ?? '')
      .filter((t) => t.includes('*/'));
    expect(found).toEqual([]);
  });

  it('names the default server, with host and port as variables', () => {
    expect(doc.servers).toEqual([DEFAULT_SERVER]);
    const server = doc.servers[0];
    const url = server?.url
      .replace('{host}', server.variables.host?.default ?? '')
      .replace('{port}', server.variables.port?.default ?? '');
    expect(url).toBe('http://127.0.0.1:3337/rpc');
  });

  it('every method carries its examples as OpenRPC example pairings', () => {
    for (const method of doc.methods) {
      const examples = methodExamples[method.name] ?? [];
      expect(method.examples.length, method.name).toBeGreaterThan(0);
      expect(method.examples.length, method.name).toBe(examples.length);
      method.examples.forEach((pairing, i) => {
        const example = examples[i];
        expect(pairing.name).toBe(example?.name);
        expect(Object.fromEntries(pairing.params.map((p) => [p.name, p.value]))).toEqual(example?.params);
        expect(pairing.result.value).toEqual(example?.result);
      });
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

  for (const path of ['docs/methods.md', 'docs/errors.md', 'docs/configuration.md']) {
    it(`${path} equals the page generated from the code's tables`, async () => {
      const pages = await renderDocPages();
      expect(Object.keys(pages)).toContain(path);
      expect(committed(path)).toBe(pages[path]);
    });
  }
});

describe('generated reference pages', () => {
  const methodsDoc = renderMethodsDoc(allMethods);
  const errorsDoc = renderErrorsDoc(ERRORS, ERROR_DESCRIPTIONS);
  const configDoc = renderConfigDoc(CONFIG_KEYS, CONFIG_GROUPS);

  it('say on their first line that they are generated and not to be edited by hand', () => {
    for (const page of [methodsDoc, errorsDoc, configDoc]) {
      const first = page.split('\n')[0] ?? '';
      expect(first).toContain('Generated by `npm run generate`');
      expect(first).toContain('Do not edit by hand');
    }
  });

  it('methods.md has a section for every method, with each param and each error it declares', () => {
    for (const def of allMethods) {
      const start = methodsDoc.indexOf(`### \`${def.name}\``);
      expect(start, def.name).toBeGreaterThan(0);
      const next = methodsDoc.indexOf('\n### ', start + 1);
      const section = methodsDoc.slice(start, next < 0 ? undefined : next);
      for (const param of Object.keys(def.params.properties))
        expect(section, def.name).toContain(`| \`${param}\``);
      for (const error of def.errors)
        expect(section, def.name).toContain(`(errors.md#${headingAnchor(error)})`);
    }
  });

  it("every link from methods.md into errors.md lands on an error's heading", () => {
    const headings = new Set([...errorsDoc.matchAll(/^## (\S+)$/gm)].map((m) => headingAnchor(m[1] ?? '')));
    const links = [...methodsDoc.matchAll(/\(errors\.md#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(0);
    for (const anchor of links) expect(headings, anchor).toContain(anchor);
  });

  it('errors.md lists every code of the catalogue with its message and description', () => {
    for (const [name, entry] of Object.entries(ERRORS)) {
      expect(errorsDoc).toContain(`| ${entry.code} | [${name}](#${headingAnchor(name)}) |`);
      expect(errorsDoc).toContain(`## ${name}\n`);
    }
  });

  it('configuration.md lists every key once, with its default', () => {
    for (const [key, entry] of Object.entries(CONFIG_KEYS)) {
      const rows = configDoc.split('\n').filter((line) => line.startsWith(`| \`${key}\` |`));
      expect(rows, key).toHaveLength(1);
      if (entry.default !== '') expect(rows[0], key).toContain(entry.default.replace(/\|/g, '\\|'));
    }
  });

  it('configuration.md refuses a key in a group the page does not have', () => {
    expect(() =>
      renderConfigDoc({ SOME_KEY: { default: '1', group: 'nowhere', description: 'A key.' } }, CONFIG_GROUPS),
    ).toThrow(/SOME_KEY/);
  });

  it('Markdown in table prose stays literal: no emphasis from page.*, no HTML from <uuid>', () => {
    const page = renderMethodsDoc([
      {
        name: 'x.y',
        summary: 'Works on every page.* and logs.* method',
        params: {
          properties: { id: { type: 'string', description: 'eval-<uuid> or a|b' } },
          required: ['id'],
        },
        result: { type: 'object', properties: {} },
        errors: [],
        readOnly: true,
      },
    ]);
    expect(page).toContain('every page.\\* and logs.\\* method.');
    expect(page).toContain('| `id` | `string` | required | eval-\\<uuid> or a\\|b |');
  });
});
