// @open-rpc/generator (the real one, node_modules/.bin/open-rpc-generator) on the committed
// openrpc.json, and this repository's tsc on what it writes.
//
// What is compiled: the generator's src/index.ts, under the tsconfig.json it writes (strict,
// commonjs, es6), plus skipLibCheck. The generated package depends on @open-rpc/client-js,
// lodash, @open-rpc/meta-schema and @open-rpc/schema-utils-js. The last two resolve to the
// versions installed here with the generator (meta-schema 1.14.9, schema-utils-js 2.2.1; the
// template names 1.14.2 and 1.15.0). @open-rpc/client-js is not installed and lodash has no type
// declarations here (@types/lodash is not installed): for those two only, CLIENT_STUBS below
// declares the members the generated code uses, with the signatures of client-js 1.7.1 and lodash.
// Nothing is installed into the output (the generator runs no npm install; neither does this).
//
// The stock TypeScript client cannot compile with this document: its template writes each method
// as `public session.create: …`, which does not parse when a method name has a dot
// (open-rpc/generator#619, unfixed in 1.22.3). The test pins that: the stock output's only errors
// are on those lines. scripts/openrpcClientComponent.mjs (a generator "custom" component: the stock
// one with the dots of property names made underscores) compiles with 0 errors.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMethods } from '../../src/methods/index.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

/** The generator writes a few files from a template: seconds at most, a minute is a hang. */
const GENERATOR_TIMEOUT_MS = 60_000;
/** tsc on the ~6,000 generated lines: seconds on a loaded 2-core machine; two minutes is a hang. */
const TSC_TIMEOUT_MS = 120_000;
/** One test generates and compiles once: both bounds, and a margin for the files it writes. */
const TEST_TIMEOUT_MS = GENERATOR_TIMEOUT_MS + TSC_TIMEOUT_MS + 30_000;
/** Enough for tsc's whole report on a broken client (every error line is ~150 bytes). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

const CLIENT_STUBS = `// Stubs for the generated client's two dependencies that are not installed here (see the test).
declare module '@open-rpc/client-js' {
  interface Transport {
    readonly uri?: string;
  }
  export class HTTPTransport implements Transport {
    constructor(uri: string);
  }
  export class WebSocketTransport implements Transport {
    constructor(uri: string);
  }
  export class PostMessageWindowTransport implements Transport {
    constructor(uri: string);
  }
  export class PostMessageIframeTransport implements Transport {
    constructor(uri: string);
  }
  export class RequestManager {
    constructor(transports: Transport[]);
  }
  export class JSONRPCError extends Error {
    code: number;
    data?: unknown;
  }
  export class Client {
    constructor(requestManager: RequestManager);
    onNotification(callback: (data: any) => void): void;
    onError(callback: (data: JSONRPCError) => void): void;
    startBatch(): void;
    stopBatch(): void;
    request(requestObject: { method: string; params?: unknown }, timeout?: number): Promise<any>;
    notify(requestObject: { method: string; params?: unknown }): Promise<any>;
  }
}
declare module 'lodash' {
  interface LoDashStatic {
    find<T>(collection: readonly T[], predicate: (item: T) => boolean): T | undefined;
    zipObject(props: readonly unknown[], values: readonly unknown[]): Record<string, unknown>;
    map<T>(collection: readonly T[] | undefined, key: string): unknown[];
  }
  const _: LoDashStatic;
  export default _;
}
`;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'openrpc-generator-'));
});
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

async function generate(args: string[]): Promise<void> {
  await run(process.execPath, [bin('open-rpc-generator'), 'generate', ...args], {
    cwd: dir,
    timeout: GENERATOR_TIMEOUT_MS,
    maxBuffer: MAX_OUTPUT_BYTES,
  });
}

/** tsc over the generated package; its error lines (none when it compiles). */
async function compile(pkg: string): Promise<string[]> {
  await symlink(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  await writeFile(join(pkg, 'client-stubs.d.ts'), CLIENT_STUBS);
  const tsconfig = {
    extends: './tsconfig.json',
    compilerOptions: { noEmit: true, skipLibCheck: true, types: [] },
    include: ['src', 'client-stubs.d.ts'],
  };
  await writeFile(join(pkg, 'tsconfig.check.json'), JSON.stringify(tsconfig));
  try {
    await run(process.execPath, [bin('tsc'), '-p', join(pkg, 'tsconfig.check.json')], {
      cwd: pkg,
      timeout: TSC_TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
    });
    return [];
  } catch (error) {
    // tsc exits 2 with its errors on stdout; anything else (a timeout, no tsc) is the test's failure.
    const stdout = (error as { stdout?: unknown }).stdout;
    if (typeof stdout !== 'string' || !/error TS\d+/.test(stdout)) throw error;
    return stdout.split('\n').filter((line) => /error TS\d+/.test(line));
  }
}

const dotted = allMethods.filter((d) => d.name.includes('.')).map((d) => d.name);

describe('@open-rpc/generator on openrpc.json', () => {
  it(
    'the custom component (scripts/openrpcClientComponent.mjs) writes a client that compiles with 0 errors',
    async () => {
      const out = join(dir, 'custom');
      const config = {
        openrpcDocument: join(root, 'openrpc.json'),
        outDir: out,
        components: [
          {
            type: 'custom',
            name: 'playwright-jsonrpc-openrpc-client',
            language: 'typescript',
            customComponent: join(root, 'scripts', 'openrpcClientComponent.mjs'),
            customType: 'client',
          },
        ],
      };
      await writeFile(join(dir, 'generator.json'), JSON.stringify(config));
      await generate(['-c', join(dir, 'generator.json')]);
      const pkg = join(out, 'custom', 'typescript');
      const code = await readFile(join(pkg, 'src', 'index.ts'), 'utf8');
      // Readable names from the titles, none of the hashed ones (`StringDoaGddGA`) generators make up.
      // @open-rpc/typings adds one union of every param and result type (`AnyOfSessionCreateHeadless…`,
      // named from their titles): it is the typings' own, beyond the document's reach.
      expect(code).toContain('export type PageGotoUrl = string;');
      expect(code).toMatch(/export interface SessionListResult \{/);
      const generic = code.match(
        /^export (?:type|interface) (?:String|Integer|Number|Boolean|ObjectOf|AnyOf|UnorderedSetOf)\w*/gm,
      );
      expect((generic ?? []).filter((name) => !name.endsWith('RpcDiscoverResult'))).toEqual([]);
      // Each method a property with underscores, called by its real name.
      expect(code).toContain('public session_create: SessionCreate = (...params) => {');
      expect(code).toContain('return this.request("session.create", params);');
      expect(await compile(pkg)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'the stock TypeScript client fails only where a method name has a dot (open-rpc/generator#619)',
    async () => {
      const out = join(dir, 'stock');
      await generate([
        '-t',
        'client',
        '-l',
        'typescript',
        '-n',
        'playwright-jsonrpc-client',
        '-d',
        join(root, 'openrpc.json'),
        '-o',
        out,
      ]);
      const pkg = join(out, 'client', 'typescript');
      const code = (await readFile(join(pkg, 'src', 'index.ts'), 'utf8')).split('\n');
      const errors = await compile(pkg);
      const lines = new Set(errors.map((e) => Number(/\((\d+),\d+\)/.exec(e)?.[1])));
      const offending = [...lines].map((n) => code[n - 1]?.trim() ?? '');
      expect(offending.filter((line) => !/^public [\w$]+(\.[\w$]+)+: /.test(line))).toEqual([]);
      expect(lines.size).toBe(dotted.length);
    },
    TEST_TIMEOUT_MS,
  );
});
