// The console's Connect dialog in a real browser against the real service: the service's URL and
// the snippets for curl, the TypeScript client, an MCP client and Claude Code, each with the key as
// an environment variable and never the stored key; Copy puts the text on the clipboard (or selects
// it when the clipboard is refused); the curl snippet runs as copied; axe finds nothing.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import { expect as pw } from '@playwright/test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchDriverBrowser, openConsole } from '../helpers/driverBrowser.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** ui/connect.js's KEY_VARIABLE: the environment variable every snippet reads the key from. */
const KEY_VARIABLE = 'API_KEY';
/** The snippets, by their data-snippet, with a line each must hold beside the origin and the variable. */
const SNIPPETS = {
  curl: '"method":"session.create"',
  typescript: "import { createClient } from 'playwright-jsonrpc-client';",
  mcp: '"mcpServers"',
  claude: 'claude mcp add --transport http browser',
} as const;
/** How long the copied curl may take: one session.create on a started service. */
const CURL_TIMEOUT_MS = 30_000;
/** Where the dialog's screenshot goes, to be looked at (not compared). */
const SHOT = join(tmpdir(), 'console-connect.png');

const run = promisify(execFile);
const suite = useServiceSuite();
let browser: Browser;
let context: BrowserContext;
let page: Page;
let origin: string;

beforeAll(async () => {
  browser = await launchDriverBrowser();
  origin = suite.service.url;
  ({ context, page } = await openConsole(browser, origin, {
    permissions: ['clipboard-read', 'clipboard-write'],
  }));
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
});

const snippet = (id: string) => page.locator(`#connect-${id}`);

async function openConnect(): Promise<void> {
  await page.locator('#connect-open').click();
  await pw(page.locator('#connect')).toBeVisible();
}

describe('the Connect dialog', () => {
  it('shows the URL and the four snippets, with the key as a variable and never the stored key', async () => {
    await openConnect();
    await pw(page.getByRole('dialog', { name: 'Connect' })).toBeVisible();
    await pw(page.locator('#connect-url')).toHaveText(origin);
    await pw(page.locator('#connect-key-variable')).toHaveText(KEY_VARIABLE);
    for (const [id, line] of Object.entries(SNIPPETS)) {
      const text = (await snippet(id).textContent()) ?? '';
      expect(text, id).toContain(origin);
      expect(text, id).toContain(KEY_VARIABLE);
      expect(text, id).toContain(line);
      expect(text, id).not.toContain(TEST_API_KEY);
    }
    expect(await snippet('curl').textContent()).toContain(`"${origin}/rpc"`);
    expect(await snippet('curl').textContent()).toContain(`-H "x-api-key: $${KEY_VARIABLE}"`);
    expect(await snippet('typescript').textContent()).toContain(`createClient({ url: '${origin}', apiKey })`);
    expect(JSON.parse((await snippet('mcp').textContent()) ?? '')).toEqual({
      mcpServers: {
        browser: { type: 'http', url: `${origin}/mcp`, headers: { 'x-api-key': `\${${KEY_VARIABLE}}` } },
      },
    });
    expect(await snippet('claude').textContent()).toBe(
      `claude mcp add --transport http browser "${origin}/mcp" \\\n  --header "x-api-key: $${KEY_VARIABLE}"`,
    );
    // Not in a note, a label or an attribute either.
    expect(await page.locator('#connect').evaluate((el) => el.outerHTML)).not.toContain(TEST_API_KEY);
    await page.locator('#connect').screenshot({ path: SHOT });
  });

  it('has no axe violations, open', async () => {
    const results = await new AxeBuilder({ page }).include('#connect').analyze();
    expect(results.passes.length).toBeGreaterThan(0);
    expect(
      results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([]);
  });

  it('copies each snippet and the URL to the clipboard, and says "Copied"', async () => {
    for (const id of [...Object.keys(SNIPPETS), 'url']) {
      const shown =
        (await page.locator(id === 'url' ? '#connect-url' : `#connect-${id}`).textContent()) ?? '';
      await page.locator(`#connect-${id}-copy`).click();
      await pw(page.locator(`#connect-${id}-state`)).toHaveText('Copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied, id).toBe(shown);
      expect(copied, id).toContain(origin);
      expect(copied, id).not.toContain(TEST_API_KEY);
    }
  });

  it('selects the text when the clipboard is refused', async () => {
    await page.evaluate(() => {
      navigator.clipboard.writeText = () =>
        Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
    await page.locator('#connect-mcp-copy').click();
    await pw(page.locator('#connect-mcp-state')).toHaveText('Selected: press Ctrl+C (⌘C) to copy');
    await pw(page.locator('#connect-mcp-state')).toHaveAttribute(
      'title',
      'The clipboard refused: Write permission denied.',
    );
    expect(await page.evaluate(() => window.getSelection()?.toString())).toBe(
      await snippet('mcp').textContent(),
    );
  });

  it('closes on Esc and gives the focus back to the Connect button', async () => {
    await page.keyboard.press('Escape');
    await pw(page.locator('#connect')).toBeHidden();
    await pw(page.locator('#connect-open')).toBeFocused();
    await openConnect();
    await page.locator('#connect-close').click();
    await pw(page.locator('#connect')).toBeHidden();
    await pw(page.locator('#connect-open')).toBeFocused();
  });

  it('the curl snippet, run as copied with the key in the environment, opens a session', async () => {
    const curl = (await snippet('curl').textContent()) ?? '';
    const { stdout } = await run('bash', ['-c', curl], {
      env: { ...process.env, [KEY_VARIABLE]: TEST_API_KEY },
      timeout: CURL_TIMEOUT_MS,
    });
    const reply = JSON.parse(stdout) as { result?: { session_id?: string } };
    const sessionId = reply.result?.session_id;
    expect(sessionId).toMatch(/^s_/);
    await suite.service.call('session.close', { session_id: sessionId });
  });

  it('the Claude Code command, run by a shell, passes the URL and the key from the environment', async () => {
    // Claude Code is not installed here: a stand-in `claude` prints the arguments the shell gave it.
    const bin = await mkdtemp(join(tmpdir(), 'connect-claude-'));
    try {
      await writeFile(join(bin, 'claude'), '#!/bin/sh\nprintf "%s\\n" "$@"\n');
      await chmod(join(bin, 'claude'), 0o755);
      const { stdout } = await run('bash', ['-c', (await snippet('claude').textContent()) ?? ''], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, [KEY_VARIABLE]: TEST_API_KEY },
      });
      expect(stdout.trimEnd().split('\n')).toEqual([
        'mcp',
        'add',
        '--transport',
        'http',
        'browser',
        `${origin}/mcp`,
        '--header',
        `x-api-key: ${TEST_API_KEY}`,
      ]);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
