// An MCP stdio client of `playwright-jsonrpc mcp` as a child process, and the scenario both ways
// of running it are checked with (from source in mcpInProcess.test.ts; from the npm pack tarball,
// installed in an empty directory, in startStop.test.ts): the core menu, a page read over stdio, and
// a clean exit with no Chromium left once stdin closes.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { descendants } from './procfs.js';
import { waitFor } from './testService.js';

/** Bound on the process's exit once stdin closed: closing sessions and Chromium takes well under it. */
const EXIT_TIMEOUT_MS = 30_000;
/** Bound on start-up and each call: Chromium's launch on a loaded machine stays well under it. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * An MCP client transport on a child's pipes. The SDK's StdioClientTransport would do, but its
 * close() sends SIGTERM after two seconds; here the test closes stdin and nothing else, so an exit
 * can only come from the command noticing its client went away.
 */
export class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        // A line that is not a JSON-RPC message throws here: the test fails on stray stdout.
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.child.on('close', () => this.onclose?.());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.child.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    this.child.stdin.end();
    return Promise.resolve();
  }
}

/** Whether a process still runs: present in /proc, the same start time, and not a zombie. */
function running(pid: number, startTime: string): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // No /proc entry: the process is gone.
    return false;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] !== 'Z' && fields[19] === startTime;
}

function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

/**
 * Drives a started `mcp` child (its pid the root of its Chromium) through the scenario: core tools
 * listed, a session that reads a fixture page, then stdin closed and the process gone with exit 0,
 * its Chromium with it, stdout carrying MCP messages only.
 */
export async function mcpStdioScenario(
  child: ChildProcessWithoutNullStreams,
  fixturesUrl: string,
): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) throw new Error('the mcp command did not start');
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const strays: Error[] = [];
  const client = new Client({ name: 'mcp-in-process-test', version: '1.0.0' });
  client.onerror = (error) => strays.push(error);
  try {
    await client.connect(new PipeTransport(child), { timeout: CALL_TIMEOUT_MS });
    const options = { timeout: CALL_TIMEOUT_MS };

    // The core menu, as /mcp lists it by default: no optional group.
    const names = (await client.listTools(undefined, options)).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['session_create', 'page_goto', 'page_text', 'session_close', 'tools_enable']),
    );
    expect(names).not.toContain('cookies_get');
    expect(names).not.toContain('network_route');

    const created = await client.callTool({ name: 'session_create', arguments: {} }, undefined, options);
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const { session_id } = created.structuredContent as { session_id: string };
    expect(session_id).toMatch(/^s_/);
    const goto = await client.callTool(
      { name: 'page_goto', arguments: { session_id, url: `${fixturesUrl}/projects` } },
      undefined,
      options,
    );
    expect(goto.isError, JSON.stringify(goto.content)).toBeFalsy();
    const text = await client.callTool(
      { name: 'page_text', arguments: { session_id, selector: 'main' } },
      undefined,
      options,
    );
    expect(text.isError, JSON.stringify(text.content)).toBeFalsy();
    expect(JSON.stringify(text.content)).toContain('New Project');

    // Chromium runs below the command's own process (no service elsewhere).
    const chromium = descendants(pid).filter((p) => /chrom/i.test(p.comm));
    expect(chromium.length).toBeGreaterThan(0);
    const tree = chromium.map((p) => ({ pid: p.pid, startTime: startTimeOf(p.pid) }));

    const closed = await client.callTool(
      { name: 'session_close', arguments: { session_id } },
      undefined,
      options,
    );
    expect(closed.isError, JSON.stringify(closed.content)).toBeFalsy();

    // The client goes away: stdin closes, and nothing else is sent to the process.
    child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      exited,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`mcp did not exit within ${EXIT_TIMEOUT_MS} ms of stdin closing`)),
          EXIT_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    expect(exit, stderr).toEqual({ code: 0, signal: null });
    await waitFor(
      () => tree.every((p) => !running(p.pid, p.startTime)),
      EXIT_TIMEOUT_MS,
      () => `Chromium of the mcp process to be gone: ${JSON.stringify(tree)}`,
    );
    // stdout carried MCP messages only; the log lines went to stderr.
    expect(strays).toEqual([]);
    expect(stderr).toContain('the service runs in this process');
    expect(stderr).toContain('closed the sessions and the browser');
  } finally {
    // Only if an assertion failed before the exit: stop the process by its PID. SIGTERM takes the
    // same path as a closed stdin, so its Chromium is closed too.
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM');
  }
}
