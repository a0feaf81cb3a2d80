// .env read by `serve` before the configuration, .env.example kept true to the configuration
// table, and LOG_FILES' combined.log and error.log.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDotEnv } from '../../src/cli/dotEnv.js';
import { CONFIG_KEYS } from '../../src/config/configKeys.js';
import { createLogger, logDestination } from '../../src/observability/logger.js';
import { waitFor } from '../helpers/testService.js';

const dir = mkdtempSync(join(tmpdir(), 'pw-rpc-dotenv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('.env', () => {
  it('is read from the working directory, and never overrides what the environment sets', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    expect(loadDotEnv(cwd)).toBeUndefined();
    writeFileSync(join(cwd, '.env'), 'PW_RPC_DOTENV_A=from-file\nPW_RPC_DOTENV_B=from-file\n');
    process.env.PW_RPC_DOTENV_B = 'from-env';
    try {
      expect(loadDotEnv(cwd)).toBe(join(cwd, '.env'));
      expect(process.env.PW_RPC_DOTENV_A).toBe('from-file');
      expect(process.env.PW_RPC_DOTENV_B).toBe('from-env');
    } finally {
      delete process.env.PW_RPC_DOTENV_A;
      delete process.env.PW_RPC_DOTENV_B;
    }
  });

  it('.env.example sets only keys of the configuration table', () => {
    const keys = readFileSync('.env.example', 'utf8')
      .split('\n')
      .map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((key): key is string => key !== undefined);
    expect(keys.length).toBeGreaterThan(5);
    // CONFIG_FILE names the YAML file of the other keys: it is read before the table.
    for (const key of keys) expect([...Object.keys(CONFIG_KEYS), 'CONFIG_FILE'], key).toContain(key);
  });
});

describe('LOG_FILES', () => {
  it('writes every line to combined.log and those at error and above to error.log', async () => {
    const logs = join(dir, 'logs');
    const logger = createLogger('info', logDestination({ dir: logs }));
    logger.info('an info line');
    logger.error({ url: 'http://127.0.0.1:9/x?token=secret-value' }, 'an error line');
    logger.flush();
    // The files open in the background: one not there yet reads as empty.
    const read = (name: string) =>
      existsSync(join(logs, name)) ? readFileSync(join(logs, name), 'utf8') : '';
    await waitFor(() => read('combined.log').includes('an error line'), 5000, 'combined.log');
    expect(read('combined.log')).toContain('an info line');
    await waitFor(() => read('error.log').includes('an error line'), 5000, 'error.log');
    expect(read('error.log')).not.toContain('an info line');
    // The same scrubbed lines as stdout: no query value.
    expect(read('combined.log')).not.toContain('secret-value');
  });
});
