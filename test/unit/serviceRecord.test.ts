// The record `serve` keeps for `serve --restart` and `stop`, and how a recorded pid is judged before
// anything is signalled: this test process stands in for a live process that is not the service,
// and a child that has exited for a stale record. Nothing here sends a signal other than 0.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isServeCommandLine, lookAtProcess, type IdentitySource } from '../../src/cli/processIdentity.js';
import { findRecordedService, StopRefusedError } from '../../src/cli/restart.js';
import {
  readServiceRecord,
  recordPath,
  removeServiceRecord,
  ServiceRecordError,
  stateDir,
  STATE_DIR_ENV,
  writeServiceRecord,
  type ServiceRecord,
} from '../../src/cli/serviceRecord.js';

let base: string;
let dir: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'pw-rpc-record-'));
  dir = join(base, 'state');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function recordOf(pid: number, processStart: string, port = 24_001): ServiceRecord {
  return {
    pid,
    port,
    host: '127.0.0.1',
    startedAt: new Date().toISOString(),
    processStart,
    shutdownTimeoutMs: 10_000,
    token: `token-${pid}-${port}`,
  };
}

function startOf(pid: number, source?: IdentitySource): string {
  const look = lookAtProcess(pid, source);
  if (look.kind !== 'alive') throw new Error(`pid ${pid} is ${look.kind}`);
  return look.start;
}

/** A pid that has certainly exited: a child of ours, waited for. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid;
  if (pid === undefined) throw new Error('the child did not start');
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

describe('the service record', () => {
  it('is written 0600 in a 0700 directory, read back, and named by its port', () => {
    const record = recordOf(process.pid, startOf(process.pid));
    const path = writeServiceRecord(dir, record);
    expect(path).toBe(recordPath(dir, record.port));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readServiceRecord(dir, record.port)).toEqual(record);
    expect(readServiceRecord(dir, record.port + 1)).toBeUndefined();
    expect(JSON.parse(readFileSync(path, 'utf8'))).not.toHaveProperty('apiKey');
  });

  it('is removed at exit only while it is still the one with that token', () => {
    const first = recordOf(process.pid, startOf(process.pid));
    writeServiceRecord(dir, first);
    const second = { ...first, token: 'a-newer-service' };
    writeServiceRecord(dir, second);
    expect(removeServiceRecord(dir, first.port, first.token)).toBe(false);
    expect(readServiceRecord(dir, first.port)).toEqual(second);
    expect(removeServiceRecord(dir, first.port, second.token)).toBe(true);
    expect(readServiceRecord(dir, first.port)).toBeUndefined();
  });

  it('is refused when it is not JSON or not a record of that port', () => {
    writeServiceRecord(dir, recordOf(process.pid, startOf(process.pid)));
    writeFileSync(recordPath(dir, 24_002), '{not json', { mode: 0o600 });
    expect(() => readServiceRecord(dir, 24_002)).toThrow(ServiceRecordError);
    writeFileSync(recordPath(dir, 24_003), JSON.stringify(recordOf(process.pid, '1', 24_004)));
    expect(() => readServiceRecord(dir, 24_003)).toThrow(/not a service record of port 24003/);
  });

  it('is refused from a directory other users can write to', () => {
    writeServiceRecord(dir, recordOf(process.pid, startOf(process.pid)));
    chmodSync(dir, 0o777);
    expect(() => readServiceRecord(dir, 24_001)).toThrow(/writable by other users/);
  });

  it('lives in the directory the environment names, else in a per-user one under the temp dir', () => {
    expect(stateDir({ [STATE_DIR_ENV]: '/somewhere/else' })).toBe('/somewhere/else');
    expect(stateDir({})).toBe(join(tmpdir(), `playwright-jsonrpc-${process.getuid?.() ?? 'user'}`));
  });
});

describe('a recorded pid, judged before any signal', () => {
  it('no record: nothing to stop', () => {
    expect(findRecordedService(dir, 24_001)).toEqual({ state: 'none' });
  });

  it('a pid that has exited is stale', async () => {
    writeServiceRecord(dir, recordOf(await deadPid(), '1'));
    const found = findRecordedService(dir, 24_001);
    expect(found.state).toBe('stale');
    expect(found.state === 'stale' ? found.why : '').toMatch(/gone/);
  });

  it('a live pid with another start time is stale: the pid was reused', () => {
    writeServiceRecord(dir, recordOf(process.pid, 'another start'));
    const found = findRecordedService(dir, 24_001);
    expect(found.state).toBe('stale');
    expect(found.state === 'stale' ? found.why : '').toMatch(/another process/);
  });

  it('the very process, but not a serve command line, is refused without quoting its command line', () => {
    writeServiceRecord(dir, recordOf(process.pid, startOf(process.pid)));
    expect(() => findRecordedService(dir, 24_001)).toThrow(StopRefusedError);
    expect(() => findRecordedService(dir, 24_001)).toThrow(/not a playwright-jsonrpc serve process/);
    let message = '';
    try {
      findRecordedService(dir, 24_001);
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).not.toContain('vitest');
  });
});

describe('process identity', () => {
  for (const source of ['proc', 'ps'] as const) {
    it(`${source}: a live process reads the same start twice and shows its command line; an exited one is gone`, async () => {
      const first = lookAtProcess(process.pid, source);
      expect(first.kind).toBe('alive');
      expect(lookAtProcess(process.pid, source)).toEqual(first);
      if (first.kind === 'alive') expect(first.commandLine.length).toBeGreaterThan(0);
      expect(lookAtProcess(await deadPid(), source)).toEqual({ kind: 'gone' });
    });
  }

  it("recognises the CLI's serve however it was started, and nothing else", () => {
    for (const serve of [
      ['node', 'dist/src/cli/main.js', 'serve'],
      ['/usr/bin/node', '/app/dist/src/cli/main.js', 'serve', '--restart'],
      ['node', '--import', 'tsx', 'src/cli/main.ts', 'serve'],
      ['node', '/home/u/app/node_modules/.bin/playwright-jsonrpc', 'serve', '--no-exit-with-parent'],
    ])
      expect(isServeCommandLine(serve), serve.join(' ')).toBe(true);
    for (const other of [
      ['node', '-e', 'setInterval(()=>{},1000)'],
      ['node', 'dist/src/cli/main.js', 'mcp'],
      ['node', 'dist/src/main.js'],
      ['serve', 'dist/src/cli/main.js'],
      ['python3', '-m', 'http.server'],
    ])
      expect(isServeCommandLine(other), other.join(' ')).toBe(false);
  });
});
