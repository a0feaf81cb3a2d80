// Linux /proc helpers: the process tree, Chromium roots, PSS, free ports, and stopping what we started.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  /** Start time in clock ticks since boot: with the pid, it names a process even after pid reuse. */
  startTime: number;
}

/** Parses /proc/<pid>/stat; undefined when the process is gone (it may exit while we look). */
export function readProc(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited between listing /proc and reading it
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = stat
    .slice(close + 2)
    .split(' ')
    .filter((f) => f.length > 0);
  // rest[0] is the state (field 3); ppid is field 4, starttime field 22.
  const ppid = Number(rest[1]);
  const startTime = Number(rest[19]);
  if (!Number.isFinite(ppid) || !Number.isFinite(startTime)) return undefined;
  return { pid, ppid, comm: stat.slice(open + 1, close), startTime };
}

/** Every process on the machine, read once from /proc. */
export function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** The descendants of `root` (not root itself), found by walking ppid links. */
export function descendants(root: number, procs: ProcInfo[] = allProcs()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out: ProcInfo[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    const pid = queue[i];
    if (pid === undefined) break;
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

const isChromium = (p: ProcInfo): boolean => /chrom|headless_shell/i.test(p.comm);

/**
 * The browser processes started under `ancestor`: Chromium processes whose parent is not Chromium.
 * With `directOnly`, only direct children of `ancestor` (the in-process floor, whose parent also
 * spawned the service and the peer).
 */
export function chromiumRoots(ancestor: number, directOnly = false): ProcInfo[] {
  const procs = allProcs();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const candidates = directOnly ? procs.filter((p) => p.ppid === ancestor) : descendants(ancestor, procs);
  return candidates.filter((p) => {
    if (!isChromium(p)) return false;
    const parent = byPid.get(p.ppid);
    return parent === undefined || !isChromium(parent);
  });
}

/** The command line of a process (argv), empty when it is gone. */
export function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a.length > 0);
  } catch {
    return []; // the process exited
  }
}

export interface TreeMemory {
  /** Proportional set size summed over the tree, KiB. */
  pssKiB: number;
  /** Private (clean + dirty) memory summed over the tree, KiB: not shared with any other process. */
  privateKiB: number;
  processes: number;
}

function rollup(pid: number): { pss: number; priv: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    return undefined; // exited while we looked
  }
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m?.[1] === undefined ? 0 : Number(m[1]);
  };
  return { pss: field('Pss'), priv: field('Private_Clean') + field('Private_Dirty') };
}

/** PSS and private memory of each root and all its descendants. */
export function treeMemory(roots: number[]): TreeMemory {
  const procs = allProcs();
  const pids = new Set<number>();
  for (const root of roots) {
    pids.add(root);
    for (const d of descendants(root, procs)) pids.add(d.pid);
  }
  let pssKiB = 0;
  let privateKiB = 0;
  let processes = 0;
  for (const pid of pids) {
    const r = rollup(pid);
    if (!r) continue;
    pssKiB += r.pss;
    privateKiB += r.priv;
    processes++;
  }
  return { pssKiB, privateKiB, processes };
}

export { freePort } from '../../test/helpers/ports.js';

/** A spawned process with the tail of its output kept for error messages. */
export interface Spawned {
  child: ChildProcess;
  pid: number;
  /** The last lines the process printed (stdout and stderr). */
  tail(): string;
  exited: Promise<number | null>;
}

export function spawnLogged(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Spawned {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
      if (lines.length > 40) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return { child, pid: child.pid, tail: () => lines.join('\n'), exited };
}

/** Sends a signal to one process if it is still the one we recorded (same pid and start time). */
export function signalIfSame(p: ProcInfo, signal: NodeJS.Signals): boolean {
  const now = readProc(p.pid);
  if (!now || now.startTime !== p.startTime) return false;
  try {
    process.kill(p.pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false; // already gone
    throw error;
  }
}

/**
 * Stops a process we started and everything under it, by pid: SIGTERM to the process, a bounded
 * wait for it to exit, SIGKILL if it did not, then SIGKILL to any of its recorded descendants that
 * are still alive (a browser orphaned by a killed parent).
 */
export async function stopTree(spawned: Spawned, graceMs: number): Promise<void> {
  const self = readProc(spawned.pid);
  const known = new Map<number, ProcInfo>();
  for (const d of descendants(spawned.pid)) known.set(d.pid, d);
  if (spawned.child.exitCode === null && spawned.child.signalCode === null) {
    spawned.child.kill('SIGTERM');
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
    if ((await Promise.race([spawned.exited, timer])) === 'timeout') {
      if (self) signalIfSame(self, 'SIGKILL');
      await Promise.race([spawned.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
    }
  }
  for (const d of known.values()) signalIfSame(d, 'SIGKILL');
}

/** Synchronous last resort (SIGINT path): SIGKILL a recorded process tree. */
export function killTreeNow(root: ProcInfo): void {
  const tree = readProc(root.pid)?.startTime === root.startTime ? descendants(root.pid) : [];
  signalIfSame(root, 'SIGKILL');
  for (const d of tree) signalIfSame(d, 'SIGKILL');
}
