// Runs an exported Playwright test (session.export's code) with npx playwright test against the
// fixture app, on this machine's Chromium, and answers its exit code and output. The spec is written
// inside the repository (test/.export-runs/…), so it resolves @playwright/test from node_modules.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchArgs, resolveBrowser } from '../../src/browser/engine/browserResolve.js';

/** A run of an exported test: Chromium start and a few steps, well within this. */
export const RUN_TIMEOUT_MS = 120_000;

/** Writes the spec and a config for this machine's Chromium into `dir`, runs it, answers its exit and output. */
export async function runPlaywrightSpec(
  dir: string,
  code: string,
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'agent-session.spec.ts'), code);
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved) throw new Error(`no Chromium: ${resolved.tried.join(', ')}`);
  const launchOptions = {
    executablePath: resolved.executablePath,
    args: launchArgs(process.getuid?.() === 0),
  };
  writeFileSync(
    join(dir, 'playwright.config.mjs'),
    `export default { testDir: '.', outputDir: ${JSON.stringify(join(dir, 'test-results'))}, timeout: 60000, workers: 1, reporter: 'line', use: { launchOptions: ${JSON.stringify(launchOptions)} } };\n`,
  );
  const cli = join(process.cwd(), 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'test', '--config', join(dir, 'playwright.config.mjs')], {
    cwd: dir,
    env: { ...process.env, ...env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const exit = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? -1)));
  clearTimeout(timer);
  return { code: exit, out };
}
