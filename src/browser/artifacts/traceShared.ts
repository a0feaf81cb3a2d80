// The folders of the browser's tracesDir that every trace shares (Playwright writes a response body
// or a screenshot there once per context, under its SHA-1): how much they hold, and their removal
// once no open context has traced.
import { renameSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The folders of a tracesDir every trace of the browser shares (Playwright writes each file once per context). */
const SHARED_DIRS = ['resources', 'screenshots', 'screencast', 'aria'];
/** Open contexts with a trace store, per tracesDir: the shared folders go when none is left. */
const openTraced = new Map<string, number>();
let purges = 0;

/** Bytes the shared folders of a tracesDir hold (one level: Playwright writes files, not folders, there). */
export async function sharedBytes(tracesDir: string): Promise<number> {
  let total = 0;
  for (const dir of SHARED_DIRS) {
    const path = join(tracesDir, dir);
    // A folder no trace made yet holds nothing; a file deleted meanwhile counts for nothing.
    const names = await readdir(path).catch((): string[] => []);
    for (const name of names) total += (await stat(join(path, name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/**
 * Removes the shared folders of a tracesDir once no open context has traced in it. Each is renamed
 * away synchronously, in the same tick as the count is read, so a context that starts tracing later
 * makes fresh folders and never writes into one being deleted; then the renamed copy is deleted.
 */
async function purgeShared(tracesDir: string, warn: (text: string) => void): Promise<void> {
  if ((openTraced.get(tracesDir) ?? 0) > 0) return;
  const doomed: string[] = [];
  for (const dir of SHARED_DIRS) {
    const from = join(tracesDir, dir);
    const to = join(tracesDir, `.purged-${++purges}`);
    try {
      renameSync(from, to);
      doomed.push(to);
    } catch (error) {
      // A folder no trace made (screencast without screencasts) is not there to remove.
      const missing = error instanceof Error && 'code' in error && error.code === 'ENOENT';
      if (!missing) warn(`could not remove ${from}: ${String(error)}`);
    }
  }
  await Promise.all(doomed.map((d) => rm(d, { recursive: true, force: true })));
}

/**
 * Counts a context that traces in `tracesDir` as open; the function it answers counts it closed and
 * removes the shared folders when it was the last.
 */
export function holdShared(tracesDir: string): (warn: (text: string) => void) => Promise<void> {
  openTraced.set(tracesDir, (openTraced.get(tracesDir) ?? 0) + 1);
  let released = false;
  return async (warn) => {
    if (released) return;
    released = true;
    const left = (openTraced.get(tracesDir) ?? 1) - 1;
    if (left === 0) openTraced.delete(tracesDir);
    else openTraced.set(tracesDir, left);
    await purgeShared(tracesDir, warn);
  };
}
