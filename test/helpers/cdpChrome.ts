// A second Chromium with CDP on an ephemeral loopback port, for tests of tabs.* (the CDP_URL browser).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveBrowser } from '../../src/browser/engine/browserResolve.js';

/** Chromium prints its DevTools endpoint on stderr within a few seconds; past this it did not start. */
const CHROME_START_TIMEOUT_MS = 30_000;
/** After SIGTERM, how long the test Chromium gets to exit before SIGKILL. */
const CHROME_EXIT_TIMEOUT_MS = 5000;

export interface CdpChrome {
  /** http://127.0.0.1:<port>, for CDP_URL. */
  url: string;
  stop(): Promise<void>;
}

/** Starts Chromium with CDP on an ephemeral loopback port, read from its stderr. */
export async function startCdpChrome(): Promise<CdpChrome> {
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved)
    throw new Error(`no Chromium for the CDP test; looked at ${resolved.tried.join(', ')}`);
  const profileDir = mkdtempSync(join(tmpdir(), 'cdp-profile-'));
  const args = [
    '--headless=new',
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    `--user-data-dir=${profileDir}`,
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  // Its own process group, so its renderers go with it when the test kills it.
  const child = spawn(resolved.executablePath, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(-child.pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const forced = await Promise.race([
        exited.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), CHROME_EXIT_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      if (forced) {
        process.kill(-child.pid, 'SIGKILL');
        await exited;
      }
    }
    rmSync(profileDir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(
        () =>
          reject(
            new Error(`Chromium printed no DevTools endpoint within ${CHROME_START_TIMEOUT_MS} ms:\n${seen}`),
          ),
        CHROME_START_TIMEOUT_MS,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(seen);
        if (m?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Chromium exited with ${code}:\n${seen}`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
