// Who a process id names right now: gone, someone else's, or alive with its start time and command
// line. `serve --restart` and `stop` signal a recorded pid only when these still describe the
// service that wrote the record, so a pid the system has since given to another process is never
// signalled.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export type ProcessLook =
  | { kind: 'gone' }
  /** Alive, but signal 0 is refused (EPERM): another user's process, never ours to stop. */
  | { kind: 'other-user' }
  /** Alive, but this system offers neither /proc nor ps to say what it is. */
  | { kind: 'unknown' }
  /**
   * `start` is opaque and only compared for equality with an earlier reading of the same machine:
   * with the pid it names one process even after the pid is reused.
   */
  | { kind: 'alive'; start: string; commandLine: string[] };

/** Where the readings come from: Linux's /proc, or `ps` where there is none (macOS, the BSDs). */
export type IdentitySource = 'proc' | 'ps';

/** Bound on one `ps` run: it reads one process and answers at once. */
const PS_TIMEOUT_MS = 5_000;

export function defaultIdentitySource(): IdentitySource {
  return existsSync('/proc/self/stat') ? 'proc' : 'ps';
}

/** `ps`'s lstart column: "Tue Jun 11 10:00:00 2024" under LC_ALL=C, the same width on every ps. */
const PS_LINE = /^\s*(\S+)\s+(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\s+(.*)$/;

function fromProc(pid: number): ProcessLook {
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch (error) {
    // The process exited between the signal check and the read.
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .filter((f) => f.length > 0);
  const state = fields[0];
  // starttime is field 22 of stat, the 20th after comm: clock ticks since boot.
  const start = fields[19];
  if (state === undefined || start === undefined) throw new Error(`/proc/${pid}/stat is not readable`);
  // A zombie has exited (its port and files are released); only its parent has yet to reap it.
  if (state === 'Z' || state === 'X') return { kind: 'gone' };
  return { kind: 'alive', start, commandLine: cmdline.split('\0').filter((a) => a.length > 0) };
}

function fromPs(pid: number): ProcessLook {
  let out: string;
  try {
    out = execFileSync('ps', ['-ww', '-p', String(pid), '-o', 'stat=', '-o', 'lstart=', '-o', 'args='], {
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: PS_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return { kind: 'unknown' };
    // ps exits 1 with no line when no process has the pid.
    if (error instanceof Error && 'status' in error && error.status === 1) return { kind: 'gone' };
    throw error;
  }
  const match = PS_LINE.exec(out.trim());
  if (match?.[1] === undefined || match[2] === undefined || match[3] === undefined)
    throw new Error(`ps answered a line it was not asked for about pid ${pid}`);
  if (match[1].startsWith('Z')) return { kind: 'gone' };
  // ps joins argv with spaces: a path with a space splits, which only makes the serve check stricter.
  return { kind: 'alive', start: match[2], commandLine: match[3].split(' ').filter((a) => a.length > 0) };
}

/** What `pid` names now. */
export function lookAtProcess(pid: number, source: IdentitySource = defaultIdentitySource()): ProcessLook {
  try {
    process.kill(pid, 0);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ESRCH') return { kind: 'gone' };
    if (code === 'EPERM') return { kind: 'other-user' };
    throw error;
  }
  return source === 'proc' ? fromProc(pid) : fromPs(pid);
}

/**
 * The command line's entry file, as each way of starting the CLI shows it: the build
 * (`dist/src/cli/main.js`), the source through tsx (`src/cli/main.ts`), or the package's bin link
 * (`node_modules/.bin/playwright-jsonrpc`, what npx runs).
 */
const CLI_ENTRY = /(^|[/\\])(cli[/\\]main\.[cm]?[jt]s|playwright-jsonrpc)$/;

/** True when a command line is this CLI's `serve`: its entry file followed, later, by `serve`. */
export function isServeCommandLine(commandLine: readonly string[]): boolean {
  const entry = commandLine.findIndex((arg) => CLI_ENTRY.test(arg));
  return entry >= 0 && commandLine.slice(entry + 1).includes('serve');
}
