// Installs the real apps of `--only realapps` offline-friendly and pinned, only when missing: node-red
// and tiddlywiki from the npm registry into bench/.apps/<name> (git-ignored), the Node.js 22 that
// node-red 5 needs (the registry's node-<platform>-<arch> binary package) when this Node is older,
// and Debian's python3-doc (the Python 3.11 documentation in HTML) through apt. `npm test` never
// needs any of them: only this suite installs and runs them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** The pinned versions. */
export const PINS = {
  nodeRed: { name: 'node-red', version: '5.0.7' },
  tiddlywiki: { name: 'tiddlywiki', version: '5.4.1' },
  /** The runtime node-red 5 asks for (engines: node >= 22.9), when the bench's own Node is older. */
  node22: { name: `node-${process.platform}-${process.arch}`, version: '22.23.5' },
  /** Debian's package of the Python 3 documentation (3.11 on bookworm). */
  pythonDoc: { name: 'python3-doc' },
} as const;

/** Where python3-doc puts the HTML, by the Debian releases' layouts (the first is a symlink to the second). */
const DOCS_ROOTS = [
  '/usr/share/doc/python3-doc/html',
  '/usr/share/doc/python3.11/html',
  '/usr/share/doc/python3/html',
];
/** How long one install may take (a registry download of node-red is some 280 packages). */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export interface InstalledApps {
  /** The Node.js that runs node-red (this process's own when it is new enough). */
  nodeForNodeRed: string;
  /** node-red's red.js. */
  nodeRedMain: string;
  /** tiddlywiki's tiddlywiki.js. */
  tiddlywikiMain: string;
  /** The root of the Python docs' HTML. */
  docsRoot: string;
}

export type AppName = 'node-red' | 'tiddlywiki' | 'docs';

/** Runs a command to its end; rejects with the tail of its output on a non-zero exit or past the timeout. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let tail = '';
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${INSTALL_TIMEOUT_MS} ms`));
    }, INSTALL_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited with ${String(code)}:\n${tail}`));
    });
  });
}

/** The version of `name` installed under `prefix`, if any. */
function installedVersion(prefix: string, name: string): string | undefined {
  const pkg = path.join(prefix, 'node_modules', name, 'package.json');
  if (!existsSync(pkg)) return undefined;
  const parsed = JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : undefined;
}

/** `npm install --prefix <dir> --no-save name@version`, unless that version is there already. */
async function npmPackage(
  appsDir: string,
  dirName: string,
  pin: { name: string; version: string },
  log: (line: string) => void,
): Promise<string> {
  const prefix = path.join(appsDir, dirName);
  if (installedVersion(prefix, pin.name) === pin.version) return prefix;
  log(`installing ${pin.name}@${pin.version} into ${path.relative(process.cwd(), prefix)} (npm) …`);
  await mkdir(prefix, { recursive: true });
  await run('npm', [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    `${pin.name}@${pin.version}`,
  ]);
  if (installedVersion(prefix, pin.name) !== pin.version)
    throw new Error(`npm installed no ${pin.name}@${pin.version} under ${prefix}`);
  return prefix;
}

/** This Node's version is at least major.minor. */
function nodeAtLeast(major: number, minor: number): boolean {
  const [ma = 0, mi = 0] = process.versions.node.split('.').map(Number);
  return ma > major || (ma === major && mi >= minor);
}

/** The docs' root if python3-doc is installed. */
function docsRoot(): string | undefined {
  return DOCS_ROOTS.find((root) => existsSync(path.join(root, 'library', 'json.html')));
}

/** python3-doc through apt (root only): `apt-get update`, then `apt-get install -y python3-doc`. */
async function ensureDocs(log: (line: string) => void): Promise<string> {
  const found = docsRoot();
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new Error(
      `the Python docs are not installed (looked in ${DOCS_ROOTS.join(', ')}): run \`apt-get install -y python3-doc\` as root`,
    );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log('installing python3-doc (apt-get update; apt-get install -y python3-doc) …');
  await run('apt-get', ['update'], env);
  await run('apt-get', ['install', '-y', PINS.pythonDoc.name], env);
  const root = docsRoot();
  if (!root) throw new Error(`python3-doc installed, but no library/json.html in ${DOCS_ROOTS.join(', ')}`);
  return root;
}

/**
 * Installs what the apps in `needed` use, each only when missing, and says where it is. Paths of an
 * app not needed are left empty.
 */
export async function ensureApps(
  appsDir: string,
  needed: ReadonlySet<AppName>,
  log: (line: string) => void,
): Promise<InstalledApps> {
  const out: InstalledApps = { nodeForNodeRed: '', nodeRedMain: '', tiddlywikiMain: '', docsRoot: '' };
  if (needed.has('node-red')) {
    const prefix = await npmPackage(appsDir, 'node-red', PINS.nodeRed, log);
    out.nodeRedMain = path.join(prefix, 'node_modules', 'node-red', 'red.js');
    if (nodeAtLeast(22, 9)) out.nodeForNodeRed = process.execPath;
    else {
      const runtime = await npmPackage(appsDir, 'node22', PINS.node22, log);
      out.nodeForNodeRed = path.join(runtime, 'node_modules', PINS.node22.name, 'bin', 'node');
    }
  }
  if (needed.has('tiddlywiki')) {
    const prefix = await npmPackage(appsDir, 'tiddlywiki', PINS.tiddlywiki, log);
    out.tiddlywikiMain = path.join(prefix, 'node_modules', 'tiddlywiki', 'tiddlywiki.js');
  }
  if (needed.has('docs')) out.docsRoot = await ensureDocs(log);
  return out;
}
