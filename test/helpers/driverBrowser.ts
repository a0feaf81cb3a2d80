// A Chromium of the tests' own, driving the web console (/ui) as a person's browser would: the same
// Chromium the service resolves, launched by playwright-core, outside the service's egress proxy.
import { chromium, type Browser } from 'playwright-core';
import { resolveBrowser } from '../../src/browser/engine/browserResolve.js';

export async function launchDriverBrowser(): Promise<Browser> {
  const resolved = resolveBrowser(process.env.CHROMIUM_PATH || undefined);
  if ('tried' in resolved) throw new Error(`no Chromium; looked at ${resolved.tried.join(', ')}`);
  return chromium.launch({
    executablePath: resolved.executablePath,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
