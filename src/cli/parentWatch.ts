/**
 * How often a service started by a command line (`npm start`, `playwright-jsonrpc serve`) checks
 * that the process which started it is still there. Linux tells a child nothing when its parent
 * dies (short of prctl PR_SET_PDEATHSIG, which Node does not expose), so the only portable sign is
 * `process.ppid` changing to the reaper (init, a container's pid 1, or a subreaper). One second
 * bounds how long an orphaned service keeps Chromium and the port after `kill -9` of its parent.
 */
export const PARENT_POLL_MS = 1000;

/**
 * Calls `onGone` once when this process's parent changes (it exited and the process was re-parented).
 * Returns a function that stops watching. A process whose parent is already pid 1 has nothing to
 * watch (started by init or as a container's command): it is left alone.
 */
export function watchParent(onGone: (formerParent: number) => void, intervalMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone(parent);
  }, intervalMs);
  // The watch alone must never keep the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
