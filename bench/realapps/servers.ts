// The real apps as the suite runs them: each on 127.0.0.1 on a free port with a temporary data
// directory, reset to its seed before every task run (node-red: its own full deploy of the seed flow;
// tiddlywiki: a restart on a fresh copy of the seed wiki; the docs: read-only), stopped at the end by
// the pid the suite started. Each also reads its own state for the tasks' checks.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  readProc,
  killTreeNow,
  spawnLogged,
  stopTree,
  type ProcInfo,
  type Spawned,
} from '../lib/proc.js';
import { sleep } from '../lib/stats.js';

/** How long an app may take to answer after its start. */
const START_TIMEOUT_MS = 60_000;
/** A check that waits for an app to have saved what the agent did waits at most this long. */
export const STATE_WAIT_MS = 8_000;

/** GET (or another method) on loopback; resolves with the status and the body. */
export function request(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Polls `url` until it answers 200; fails early when the process exits. */
async function waitReady(url: string, spawned: Spawned, name: string): Promise<void> {
  let exited = false;
  void spawned.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`${name} exited during start-up:\n${spawned.tail()}`);
    const status = await request(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`${name} not answering within ${START_TIMEOUT_MS} ms:\n${spawned.tail()}`);
    await sleep(100);
  }
}

/** A child process of the suite, stopped by its pid (and its tree's). */
class ChildApp {
  protected spawned: Spawned | undefined;
  private self: ProcInfo | undefined;

  protected launch(command: string, args: string[], cwd: string): Spawned {
    const spawned = spawnLogged(command, args, { cwd, env: { ...process.env, NODE_ENV: 'production' } });
    this.spawned = spawned;
    this.self = readProc(spawned.pid);
    return spawned;
  }

  protected async stopChild(): Promise<void> {
    const spawned = this.spawned;
    this.spawned = undefined;
    this.self = undefined;
    if (spawned) await stopTree(spawned, 10_000);
  }

  killNow(): void {
    if (this.self) killTreeNow(this.self);
  }
}

/** The flow every node-red task starts from: one tab and one change node. */
export const NODE_RED_SEED = {
  tab: { id: 'f1', label: 'Flow 1' },
  node: { id: 'n1', name: 'set greeting' },
} as const;

const nodeRedSeedFlow = (): unknown[] => [
  { id: NODE_RED_SEED.tab.id, type: 'tab', label: NODE_RED_SEED.tab.label, disabled: false, info: '' },
  {
    id: NODE_RED_SEED.node.id,
    type: 'change',
    z: NODE_RED_SEED.tab.id,
    name: NODE_RED_SEED.node.name,
    rules: [{ t: 'set', p: 'payload', pt: 'msg', to: 'hello', tot: 'str' }],
    x: 300,
    y: 120,
    wires: [[]],
  },
];

/** One node of GET /flows (the fields the checks read). */
export interface FlowNode {
  id: string;
  type: string;
  z?: string;
  name?: string;
  label?: string;
}

/** node-red 5.0.7: the flow editor, its admin API on the same port. */
export class NodeRedApp extends ChildApp {
  readonly name = 'node-red';
  url = '';
  private dir = '';

  constructor(
    private readonly node: string,
    private readonly redJs: string,
  ) {
    super();
  }

  async start(): Promise<void> {
    const port = await freePort();
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'bench-node-red-'));
    // Loopback only, no first-run tour, no telemetry prompt, a fixed credential key (no warning).
    const settings = {
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: 'bench',
      editorTheme: { tours: false },
      telemetry: { enabled: false, updateNotification: false },
      diagnostics: { enabled: false, ui: false },
      logging: { console: { level: 'warn' } },
    };
    await writeFile(path.join(this.dir, 'settings.js'), `module.exports = ${JSON.stringify(settings)};\n`);
    await writeFile(path.join(this.dir, 'flows.json'), JSON.stringify(nodeRedSeedFlow()));
    this.url = `http://127.0.0.1:${port}/`;
    const spawned = this.launch(this.node, [this.redJs, '--userDir', this.dir], this.dir);
    await waitReady(`${this.url}flows`, spawned, this.name);
  }

  /** Its own reset: a full deploy of the seed flow through the admin API. */
  async reset(): Promise<void> {
    const { status, body } = await request(`${this.url}flows`, {
      method: 'POST',
      body: JSON.stringify(nodeRedSeedFlow()),
      headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    });
    if (status !== 204 && status !== 200)
      throw new Error(`node-red reset: POST /flows answered ${status}: ${body}`);
  }

  /** The deployed flows (GET /flows). */
  async flows(): Promise<FlowNode[]> {
    const { status, body } = await request(`${this.url}flows`);
    if (status !== 200) throw new Error(`node-red GET /flows answered ${status}`);
    return JSON.parse(body) as FlowNode[];
  }

  async stop(): Promise<void> {
    await this.stopChild();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/** A tiddler of the seed wiki. */
export interface SeedTiddler {
  title: string;
  tags?: string;
  text: string;
}

/** The wiki every tiddlywiki task starts from. */
export const WIKI_SEED = {
  shopping: { title: 'Shopping List', tags: 'Errands', text: 'Milk, eggs and 3 lemons.' },
  kestrel: {
    title: 'Project Kestrel',
    tags: 'Projects',
    text: 'Project Kestrel maps the old harbour.\n\nBudget: 42,000 EUR\n\nLead: Ada Byron',
  },
  others: [
    { title: 'Kestrel sightings', tags: 'Birds', text: 'Two kestrels over the harbour wall in May.' },
    { title: 'Harbour history', tags: 'Projects', text: 'The harbour was dredged in 1911.' },
    { title: 'Reading list', tags: 'Errands', text: 'Moby-Dick; The Old Man and the Sea.' },
  ],
} as const;

const tidFile = (t: SeedTiddler): string =>
  `title: ${t.title}\n${t.tags ? `tags: ${t.tags}\n` : ''}type: text/vnd.tiddlywiki\n\n${t.text}\n`;

/** One tiddler as the server's API answers it. */
export interface Tiddler {
  title: string;
  text?: string;
  tags?: string;
}

/** tiddlywiki 5.4.1 on Node.js (the server edition: the browser saves each tiddler back over HTTP). */
export class WikiApp extends ChildApp {
  readonly name = 'tiddlywiki';
  url = '';
  private port = 0;
  private template = '';
  private data = '';

  constructor(private readonly main: string) {
    super();
  }

  /** Builds the seed wiki once (the server edition plus the seed tiddlers) and starts on it. */
  async start(): Promise<void> {
    this.port = await freePort();
    this.url = `http://127.0.0.1:${this.port}/`;
    this.template = await mkdtemp(path.join(os.tmpdir(), 'bench-wiki-seed-'));
    const wiki = path.join(this.template, 'wiki');
    const init = spawnLogged(process.execPath, [this.main, wiki, '--init', 'server'], {
      cwd: this.template,
      env: { ...process.env },
    });
    if ((await init.exited) !== 0) throw new Error(`tiddlywiki --init server failed:\n${init.tail()}`);
    const tiddlers = path.join(wiki, 'tiddlers');
    await mkdir(tiddlers, { recursive: true });
    const seed: SeedTiddler[] = [WIKI_SEED.shopping, WIKI_SEED.kestrel, ...WIKI_SEED.others];
    for (const t of seed) await writeFile(path.join(tiddlers, `${t.title}.tid`), tidFile(t));
    await this.reset();
  }

  /** A fresh copy of the seed wiki and a new server process on it (the same port). */
  async reset(): Promise<void> {
    await this.stopChild();
    if (this.data) await rm(this.data, { recursive: true, force: true });
    this.data = await mkdtemp(path.join(os.tmpdir(), 'bench-wiki-'));
    const wiki = path.join(this.data, 'wiki');
    await cp(path.join(this.template, 'wiki'), wiki, { recursive: true });
    const spawned = this.launch(
      process.execPath,
      [this.main, wiki, '--listen', `port=${this.port}`, 'host=127.0.0.1'],
      this.data,
    );
    await waitReady(`${this.url}status`, spawned, this.name);
  }

  /** A tiddler as the server has it (GET /recipes/default/tiddlers/<title>), or undefined. */
  async tiddler(title: string): Promise<Tiddler | undefined> {
    const { status, body } = await request(
      `${this.url}recipes/default/tiddlers/${encodeURIComponent(title)}`,
    );
    if (status === 404) return undefined;
    if (status !== 200) throw new Error(`tiddlywiki GET ${title} answered ${status}`);
    return JSON.parse(body) as Tiddler;
  }

  /**
   * Waits until the server's copy of `title` passes `ok` (the browser saves a tiddler a second or so
   * after the edit), at most STATE_WAIT_MS; answers the last copy seen.
   */
  async saved(title: string, ok: (t: Tiddler | undefined) => boolean): Promise<Tiddler | undefined> {
    const deadline = Date.now() + STATE_WAIT_MS;
    for (;;) {
      const t = await this.tiddler(title);
      if (ok(t) || Date.now() > deadline) return t;
      await sleep(200);
    }
  }

  async stop(): Promise<void> {
    await this.stopChild();
    for (const dir of [this.data, this.template]) if (dir) await rm(dir, { recursive: true, force: true });
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.ico': 'image/x-icon',
};

/** The entities Sphinx writes into signatures. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** The Python 3.11 docs (Sphinx HTML from python3-doc), served read-only by a static server in this process. */
export class DocsSite {
  readonly name = 'docs';
  url = '';
  private server: http.Server | undefined;

  constructor(readonly root: string) {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const rel = path.normalize(pathname.endsWith('/') ? `${pathname}index.html` : pathname);
      const file = path.join(this.root, rel);
      // Only files under the root (its symlinks, such as _static/jquery.js, may point elsewhere).
      if (!file.startsWith(this.root + path.sep)) {
        res.writeHead(403).end();
        return;
      }
      readFile(file).then(
        (body) => {
          res.writeHead(200, {
            'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
          });
          res.end(body);
        },
        () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  /** Read-only: nothing to reset. */
  reset(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The signature Sphinx rendered for `id` on `page` (the text of its `<dt id=…>`, without the ¶
   * permalink): the page's known content the docs tasks' answers are compared with.
   */
  async signature(page: string, id: string): Promise<string> {
    const html = await readFile(path.join(this.root, page), 'utf8');
    const at = html.indexOf(`id="${id}"`);
    const end = html.indexOf('</dt>', at);
    if (at < 0 || end < 0) throw new Error(`no <dt id="${id}"> in ${page}`);
    const dt = html.slice(html.indexOf('>', at) + 1, end);
    return dt
      .replace(/<a class="headerlink"[\s\S]*?<\/a>/g, '')
      .replace(/<[^>]+>/g, '')
      .replace(/&(#?\w+);/g, (m, name: string) => ENTITIES[name] ?? m)
      .replace(/\s+/g, ' ')
      .trim();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Nothing outside this process to kill. */
  killNow(): void {}
}
