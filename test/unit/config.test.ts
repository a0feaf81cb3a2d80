import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONFIG_DEFAULTS,
  CONFIG_GROUPS,
  CONFIG_KEYS,
  DEFAULT_ALLOW_HOST_REGEX,
} from '../../src/config/configKeys.js';
import { ROUTE_BODY_CEILING_BYTES } from '../../src/config/configCaps.js';
import { ROUTE_BODY_SCHEMA_CEILING_BYTES } from '../../src/browser/network/sessionRoutes.js';
import { DEFAULT_CONFIG_FILE, loadConfig, substituteEnv } from '../../src/config/config.js';
import { configError } from '../helpers/configError.js';

const dir = mkdtempSync(join(tmpdir(), 'pw-jsonrpc-config-'));
let fileCount = 0;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function yamlFile(text: string): string {
  const path = join(dir, `config-${++fileCount}.yaml`);
  writeFileSync(path, text);
  return path;
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3337,
      host: '127.0.0.1',
      apiKeys: [],
      sessionTtlMs: 120_000,
      maxSessions: 32,
      rateLimitMax: 3000,
      rateLimitWindowMs: 60_000,
      bodyLimit: '512kb',
      batchMax: 50,
      headless: true,
      chromiumPath: undefined,
      logLevel: 'info',
      agentSecret: undefined,
      cdpUrl: undefined,
    });
    expect(c.allowHostRegex.source).toBe(new RegExp(DEFAULT_ALLOW_HOST_REGEX).source);
  });

  it('reads values and splits API_KEY on commas', () => {
    const c = loadConfig({
      PORT: '0',
      API_KEY: ' k1 , k2,,',
      HEADLESS: 'false',
      MAX_SESSIONS: '3',
      BODY_LIMIT: '1kb',
      CDP_URL: 'http://127.0.0.1:9222',
      LOG_LEVEL: 'silent',
    });
    expect(c).toMatchObject({
      port: 0,
      apiKeys: ['k1', 'k2'],
      headless: false,
      maxSessions: 3,
      bodyLimit: '1kb',
      bodyLimitBytes: 1024,
      cdpUrl: 'http://127.0.0.1:9222',
      logLevel: 'silent',
    });
  });
});

it.each([
  ['512kb', 512 * 1024],
  ['2MB', 2 * 1024 * 1024],
  ['100b', 100],
  ['4096', 4096],
])('BODY_LIMIT %s is %i bytes (the WebSocket /rpc message cap)', (value, bytes) => {
  expect(loadConfig({ API_KEY: 'k', BODY_LIMIT: value }).bodyLimitBytes).toBe(bytes);
});

it('caps open /rpc sockets per key and per address by default', () => {
  expect(loadConfig({})).toMatchObject({ maxRpcSocketsPerKey: 32, maxRpcSocketsPerAddress: 64 });
  expect(loadConfig({ MAX_RPC_SOCKETS_PER_KEY: '4' }).maxRpcSocketsPerKey).toBe(4);
});

describe('the names a Host header may carry', () => {
  it('are the loopback names by default (HOST 127.0.0.1 among them)', () => {
    expect(loadConfig({}).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it.each([
    ['10.0.0.5', '10.0.0.5'],
    ['fe80::1', '[fe80::1]'],
    ['Box.Lan', 'box.lan'],
  ])('add HOST=%s as %s', (host, name) => {
    expect(loadConfig({ HOST: host }).allowedHosts).toContain(name);
  });

  it.each(['0.0.0.0', '::'])('do not add a wildcard HOST=%s', (host) => {
    expect(loadConfig({ HOST: host }).allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it('add ALLOWED_HOSTS, trimmed and in lower case', () => {
    expect(loadConfig({ ALLOWED_HOSTS: ' svc.internal , Other.Example,[FD00::2]' }).allowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'svc.internal',
      'other.example',
      '[fd00::2]',
    ]);
  });

  it.each(['http://svc.internal', 'svc.internal:8080', 'a b', '*'])('refuse ALLOWED_HOSTS=%s', (value) => {
    expect(configError({ ALLOWED_HOSTS: value }).variable).toBe('ALLOWED_HOSTS');
  });
});

describe('loadConfig refuses bad values, naming the variable', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['MAX_SESSIONS', '0'],
    ['MAX_SESSIONS', '2.5'],
    ['ALLOW_HOST_REGEX', '('],
    ['HEADLESS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT', 'huge'],
    ['BODY_LIMIT', '10gb'],
    ['BODY_LIMIT', '0'],
    ['BODY_LIMIT', '0kb'],
    ['CDP_URL', 'ftp://x'],
    ['SESSION_TTL_MS', '10'],
    ['RATE_LIMIT_MAX', '0'],
    ['BATCH_MAX', '0'],
    ['MAX_RPC_SOCKETS_PER_KEY', '0'],
    ['MAX_RPC_SOCKETS_PER_ADDRESS', 'many'],
    ['MAX_NETWORK_BODY_BYTES', '0'],
    ['MAX_NETWORK_BODY_BYTES', '67108865'],
    ['MAX_NETWORK_BODY_FETCH_BYTES', '1.5'],
    ['MAX_NETWORK_DETAILS', '0'],
    ['MAX_NETWORK_DETAILS', '100001'],
    ['MAX_HAR_CHARS', '-1'],
    ['MAX_ROUTE_BODY_BYTES', '0'],
    ['MAX_ROUTE_BODY_BYTES', '67108865'],
    ['MAX_ROUTE_BODIES_BYTES', 'lots'],
    ['MAX_STORAGE_STATE_CHARS', '0'],
    ['MAX_CLIPBOARD_CHARS', '0'],
    ['MAX_CLIPBOARD_CHARS', '67108865'],
  ])('%s=%s', (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}:`)).toBe(true);
  });
});

describe('CONFIG_FILE (YAML)', () => {
  it('reads keys from the file, with ${VAR} substitution from the environment', () => {
    const path = yamlFile(
      [
        'PORT: 4100',
        'API_KEY: "${MY_TEST_SECRET},static-key"',
        'ALLOW_HOST_REGEX: "^http://app\\\\.test(:\\\\d+)?/"',
        'HEADLESS: false',
        'LOG_LEVEL: ${MY_LEVEL}',
      ].join('\n'),
    );
    const c = loadConfig({ CONFIG_FILE: path, MY_TEST_SECRET: 'from-env', MY_LEVEL: 'warn' });
    expect(c.port).toBe(4100);
    expect(c.apiKeys).toEqual(['from-env', 'static-key']);
    expect(c.allowHostRegex.test('http://app.test:8080/')).toBe(true);
    expect(c.allowHostRegex.test('http://appxtest/')).toBe(false);
    expect(c.headless).toBe(false);
    expect(c.logLevel).toBe('warn');
  });

  it('an unset ${VAR} is an error naming the key and the variable; ${VAR:-default} gives the default', () => {
    const unset = configError({ CONFIG_FILE: yamlFile('LOG_LEVEL: "${SURELY_NOT_SET_ANYWHERE}"\n') });
    expect(unset.variable).toBe('LOG_LEVEL');
    expect(unset.message).toContain('${SURELY_NOT_SET_ANYWHERE} in the config file is not set');
    expect(unset.message).toContain('${SURELY_NOT_SET_ANYWHERE:-default}');
    const withDefault = yamlFile(
      'LOG_LEVEL: "${SURELY_NOT_SET_ANYWHERE:-warn}"\nMAX_SESSIONS: "${NONE:-}"\n',
    );
    const c = loadConfig({ CONFIG_FILE: withDefault });
    expect(c.logLevel).toBe('warn');
    // An explicit empty default: the key's own default applies.
    expect(c.maxSessions).toBe(loadConfig({ CONFIG_FILE: '' }).maxSessions);
    // Set (even empty) wins over the written default.
    expect(loadConfig({ CONFIG_FILE: withDefault, SURELY_NOT_SET_ANYWHERE: 'error' }).logLevel).toBe('error');
  });

  it(`reads ${DEFAULT_CONFIG_FILE} of the working directory when CONFIG_FILE is not set, and none when it is empty`, () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(cwd, DEFAULT_CONFIG_FILE), 'PORT: 4321\n');
    expect(loadConfig({}, cwd).port).toBe(4321);
    expect(loadConfig({ CONFIG_FILE: '' }, cwd).port).toBe(3337);
    expect(loadConfig({}, dir).port).toBe(3337);
  });

  it('environment variables win over the file', () => {
    const path = yamlFile('PORT: 4100\nMAX_SESSIONS: 2\n');
    const c = loadConfig({ CONFIG_FILE: path, PORT: '4200' });
    expect(c.port).toBe(4200);
    expect(c.maxSessions).toBe(2);
  });

  it('refuses an unknown key and names it', () => {
    const path = yamlFile('PORT: 4100\nNOT_A_SETTING: 1\n');
    const error = configError({ CONFIG_FILE: path });
    expect(error.variable).toBe('CONFIG_FILE');
    expect(error.message).toContain('NOT_A_SETTING');
  });

  it('a bad value in the file names the variable', () => {
    const path = yamlFile('MAX_SESSIONS: 0\n');
    expect(configError({ CONFIG_FILE: path }).variable).toBe('MAX_SESSIONS');
  });

  it('refuses a nested value, a non-mapping document and a missing file', () => {
    expect(configError({ CONFIG_FILE: yamlFile('PORT:\n  nested: 1\n') }).variable).toBe('PORT');
    expect(configError({ CONFIG_FILE: yamlFile('- PORT\n- HOST\n') }).variable).toBe('CONFIG_FILE');
    expect(configError({ CONFIG_FILE: join(dir, 'missing.yaml') }).variable).toBe('CONFIG_FILE');
  });

  it('an empty file means the defaults', () => {
    expect(loadConfig({ CONFIG_FILE: yamlFile('') }).port).toBe(3337);
  });
});

describe('substituteEnv', () => {
  it('replaces each ${NAME} and leaves other dollar signs alone', () => {
    expect(substituteEnv('${A}-${B}-$C-${}', { A: '1', B: '2', C: '3' })).toBe('1-2-$C-${}');
    expect(substituteEnv('${EMPTY}x', { EMPTY: '' })).toBe('x');
    expect(substituteEnv('${MISSING:-d}x', {})).toBe('dx');
    expect(() => substituteEnv('${MISSING}x', {}, 'PORT')).toThrow(
      /PORT: \$\{MISSING\} in the config file is not set/,
    );
  });
});

describe('the declared configuration table (docs/configuration.md is generated from it)', () => {
  it('gives every key a one-line description and a known group', () => {
    for (const [key, entry] of Object.entries(CONFIG_KEYS)) {
      expect(entry.description.trim().length, key).toBeGreaterThan(10);
      expect(entry.description, key).not.toMatch(/\n/);
      expect(Object.keys(CONFIG_GROUPS), key).toContain(entry.group);
    }
  });

  it('derives CONFIG_DEFAULTS from it, key for key', () => {
    expect(Object.keys(CONFIG_DEFAULTS)).toEqual(Object.keys(CONFIG_KEYS));
    for (const [key, entry] of Object.entries(CONFIG_KEYS)) {
      expect(CONFIG_DEFAULTS[key as keyof typeof CONFIG_DEFAULTS], key).toBe(entry.default);
    }
  });
});

describe('the body caps (configCaps.ts)', () => {
  it('default to the constants they replaced, and read a lowered value', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      maxNetworkBodyBytes: 1024 * 1024,
      maxNetworkBodyFetchBytes: 10 * 1024 * 1024,
      maxNetworkDetails: 500,
      maxHarChars: 8 * 1024 * 1024,
      maxRouteBodyBytes: 5 * 1024 * 1024,
      maxRouteBodiesBytes: 20 * 1024 * 1024,
      maxStorageStateChars: 8 * 1024 * 1024,
      maxClipboardChars: 1024 * 1024,
    });
    expect(loadConfig({ MAX_CLIPBOARD_CHARS: '100' }).maxClipboardChars).toBe(100);
    expect(loadConfig({ MAX_STORAGE_STATE_CHARS: '3000' }).maxStorageStateChars).toBe(3000);
  });

  it("bounds MAX_ROUTE_BODY_BYTES by network.route's schema ceiling, so the schema never refuses a configured size", () => {
    const ceiling = ROUTE_BODY_SCHEMA_CEILING_BYTES;
    expect(ROUTE_BODY_CEILING_BYTES).toBe(ceiling);
    const env = { MAX_ROUTE_BODIES_BYTES: String(ceiling) };
    expect(loadConfig({ ...env, MAX_ROUTE_BODY_BYTES: String(ceiling) }).maxRouteBodyBytes).toBe(ceiling);
    expect(configError({ ...env, MAX_ROUTE_BODY_BYTES: String(ceiling + 1) }).variable).toBe(
      'MAX_ROUTE_BODY_BYTES',
    );
  });

  it('refuses MAX_ROUTE_BODY_BYTES over MAX_ROUTE_BODIES_BYTES', () => {
    const error = configError({ MAX_ROUTE_BODY_BYTES: '2000', MAX_ROUTE_BODIES_BYTES: '1000' });
    expect(error.variable).toBe('MAX_ROUTE_BODY_BYTES');
    expect(error.message).toMatch(/over MAX_ROUTE_BODIES_BYTES \(1000\)/);
    expect(
      loadConfig({ MAX_ROUTE_BODY_BYTES: '1000', MAX_ROUTE_BODIES_BYTES: '1000' }).maxRouteBodyBytes,
    ).toBe(1000);
  });
});
