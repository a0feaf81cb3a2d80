import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may contain spaces: split after the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { pid, ppid: Number(fields[1]), comm, cmdline };
  } catch {
    // The process ended between listing and reading: it is simply not there.
    return undefined;
  }
}

/** Every process on the machine (Linux /proc). */
export function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** All descendants of a process. */
export function descendants(root: number): ProcInfo[] {
  const all = processes();
  const out: ProcInfo[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const p of all) {
      if (p.ppid === parent) {
        out.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return out;
}

/** The Chromium browser processes this process launched (direct children running a chrom* binary). */
export function browserProcesses(): ProcInfo[] {
  return processes().filter((p) => p.ppid === process.pid && /chrom/i.test(p.comm + p.cmdline));
}

/** Chromium processes below this process, renderers included. */
export function chromiumTree(): ProcInfo[] {
  return descendants(process.pid).filter((p) => /chrom/i.test(p.comm + p.cmdline));
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      readlinkSync(`/proc/self/fd/${fd}`);
      return true;
    } catch {
      // The descriptor closed while listing: not open.
      return false;
    }
  }).length;
}
