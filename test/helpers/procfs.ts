// /proc views the tests need, on top of the benchmark's /proc reader (one parser for both).
import { readdirSync, readlinkSync } from 'node:fs';
import { allProcs, cmdline, descendants as descendantsOf, type ProcInfo } from '../../bench/lib/proc.js';

export interface ProcWithCmdline extends ProcInfo {
  cmdline: string;
}

const isChromium = (p: ProcInfo): boolean => /chrom/i.test(p.comm);

function withCmdline(p: ProcInfo): ProcWithCmdline {
  return { ...p, cmdline: cmdline(p.pid).join(' ') };
}

/** Every process on the machine. */
export function processes(): ProcInfo[] {
  return allProcs();
}

/** All descendants of a process. */
export function descendants(root: number): ProcInfo[] {
  return descendantsOf(root);
}

/** The Chromium browser processes this process launched (direct children running Chromium). */
export function browserProcesses(): ProcWithCmdline[] {
  return allProcs()
    .filter((p) => p.ppid === process.pid && isChromium(p))
    .map(withCmdline);
}

/** Chromium processes below this process, renderers included. */
export function chromiumTree(): ProcWithCmdline[] {
  return descendantsOf(process.pid).filter(isChromium).map(withCmdline);
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
