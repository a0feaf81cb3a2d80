// Downloads and uploads (issue 11) on the fixture app's /files pages: a download by link and by a
// navigation to an attachment, kept per session within caps (cut while it streams), read back in
// slices, deleted whenever the session ends, never fetched from outside the allow-list; page.upload
// on a visible, a hidden and a multiple file input and on a button that opens a file chooser, with
// each rule refused with the error it documents.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { REFUSED_LISTED } from '../../src/browser/artifacts/downloadStore.js';
import { MAX_DOWNLOAD_CHUNK_BYTES } from '../../src/methods/session/downloads.js';
import { MAX_UPLOAD_FILES } from '../../src/methods/page/pageUpload.js';
import { startDecoyServer, type FixtureServer } from '../fixtures/fixtureServer.js';
import { ATTACHMENT_NAME, ATTACHMENT_TEXT } from '../fixtures/routes/files.js';
import { browserProcesses } from '../helpers/procfs.js';
import { refOf } from '../helpers/snapshotRefs.js';
import { useServiceSuite } from '../helpers/suite.js';
import { RpcCallError, startTestService, waitFor, type TestService } from '../helpers/testService.js';
import { rpcFailure } from '../helpers/boundSession.js';

/** Small caps, so a test reaches each of them with a few hundred kilobytes. */
const MAX_DOWNLOAD_BYTES = 400_000;
const MAX_SESSION_DOWNLOAD_BYTES = 700_000;
const MAX_SESSION_DOWNLOADS = 6;
const MAX_UPLOAD_BYTES = 1000;
/** What /files/downloads' #medium link answers (with Content-Length). */
const MEDIUM_BYTES = 300_000;

const suite = useServiceSuite({
  MAX_DOWNLOAD_BYTES: String(MAX_DOWNLOAD_BYTES),
  MAX_SESSION_DOWNLOAD_BYTES: String(MAX_SESSION_DOWNLOAD_BYTES),
  MAX_SESSION_DOWNLOADS: String(MAX_SESSION_DOWNLOADS),
  MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
});

let decoy: FixtureServer | undefined;
beforeAll(async () => {
  decoy = await startDecoyServer();
});
afterAll(async () => {
  await decoy?.close();
});

type Params = Record<string, unknown>;

interface Download {
  download_id: string;
  name: string;
  url: string;
  bytes: number | null;
  mime: string | null;
  state: string;
  reason?: string;
}

interface Slice {
  base64: string;
  bytes: number;
  offset: number;
  size: number;
  nextOffset?: number;
  name: string;
  mime: string | null;
}

/** A new session on a fixture page, with the calls the tests make bound to it. */
async function open(path: string) {
  const session_id = await suite.open(path);
  const call = <T = Params>(method: string, params: Params = {}) =>
    suite.service.call<T>(method, { session_id, ...params });
  const list = async () => (await call<{ downloads: Download[] }>('downloads.list')).downloads;
  return {
    session_id,
    call,
    fails: (method: string, params: Params, code: number) => rpcFailure(call(method, params), code),
    text: async (selector: string) => (await call<{ text: string }>('page.text', { selector })).text,
    evaluate: async <T = unknown>(expression: string) =>
      (await call<{ result: T }>('page.evaluate', { expression })).result,
    list,
    /** The download `id` once it ended (not downloading any more). */
    ended: async (id: string): Promise<Download> => {
      let found: Download | undefined;
      await waitFor(
        async () => {
          found = (await list()).find((d) => d.download_id === id);
          return found !== undefined && found.state !== 'downloading';
        },
        20_000,
        `download ${id} to end`,
      );
      if (found === undefined) throw new Error(`no download ${id}`);
      return found;
    },
    /** The session's own record (events, the download directory), from the registry. */
    record: () => {
      const session = suite.service.running.services.sessions.get(session_id);
      if (session === undefined) throw new Error(`session ${session_id} is not live`);
      return session;
    },
    close: () => suite.service.call('session.close', { session_id }),
  };
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** Bytes i mod 251 from `offset`: what /files/big sends. */
function pattern(offset: number, length: number): Buffer {
  return Buffer.from(Array.from({ length }, (_, i) => (offset + i) % 251));
}

describe('downloads', () => {
  it('a click on an attachment link answers normally; the file is listed, logged, in the events and readable', async () => {
    const s = await open('/files/downloads');
    const mark = s.record().events.mark();
    expect(await s.call('page.click', { selector: '#attachment' })).toMatchObject({ ok: true });
    const d = await s.ended('d1');
    expect(d).toMatchObject({
      download_id: 'd1',
      name: ATTACHMENT_NAME,
      bytes: Buffer.byteLength(ATTACHMENT_TEXT),
      mime: 'text/plain',
      state: 'saved',
    });
    expect(d.url).toBe(`${suite.fixture.url}/files/attachment.txt`);
    const slice = await s.call<Slice>('downloads.get', { download_id: 'd1' });
    expect(Buffer.from(slice.base64, 'base64').toString('utf8')).toBe(ATTACHMENT_TEXT);
    expect(slice).toMatchObject({ offset: 0, size: slice.bytes, name: ATTACHMENT_NAME, mime: 'text/plain' });
    expect(slice.nextOffset).toBeUndefined();

    const { events } = s.record().events.since(mark);
    expect(events.filter((e) => e.kind === 'download')).toEqual([
      expect.objectContaining({ kind: 'download', download_id: 'd1', name: ATTACHMENT_NAME, state: 'saved' }),
    ]);
    // The download's ERR_ABORTED is not a failed request.
    expect(events.filter((e) => e.kind === 'requestFailed')).toEqual([]);
    const logs = await s.call<{ console: { type: string; text: string }[] }>('logs.pull');
    expect(logs.console.some((l) => l.type === 'download' && l.text.includes('d1 saved'))).toBe(true);
    // The page stayed where it was.
    expect(await s.text('#out')).toBe('ready');
    await s.close();
  });

  it('page.goto to an attachment answers with the download, not an error, and records no failed request', async () => {
    const s = await open('/files/downloads');
    const mark = s.record().events.mark();
    const nav = await s.call<{ url: string; status: number | null; download?: Download }>('page.goto', {
      url: `${suite.fixture.url}/files/attachment.txt`,
    });
    expect(nav.url).toBe(`${suite.fixture.url}/files/downloads`);
    expect(nav.status).toBe(200);
    expect(nav.download).toMatchObject({
      download_id: 'd1',
      name: ATTACHMENT_NAME,
      mime: 'text/plain',
      state: 'saved',
      bytes: Buffer.byteLength(ATTACHMENT_TEXT),
    });
    const { events } = s.record().events.since(mark);
    expect(events.filter((e) => e.kind === 'requestFailed')).toEqual([]);
    const network = await s.call<{ requests: unknown[] }>('network.pull', { onlyErrors: true });
    expect(network.requests).toEqual([]);
    // A second one is a second download.
    const again = await s.call<{ download?: Download }>('page.goto', {
      url: `${suite.fixture.url}/files/attachment.txt`,
      waitUntil: 'load',
    });
    expect(again.download?.download_id).toBe('d2');
    expect((await s.list()).map((d) => d.state)).toEqual(['saved', 'saved']);
    await s.close();
  });

  it('a download over MAX_DOWNLOAD_BYTES is cancelled while it streams and listed as refused', async () => {
    const s = await open('/files/downloads');
    // 64 MiB paced at ~6 MiB/s without Content-Length: only the progress can stop it.
    await s.call('page.click', { selector: '#big' });
    const d = await s.ended('d1');
    expect(d.state).toBe('refused');
    expect(d.reason).toContain('MAX_DOWNLOAD_BYTES');
    expect(d.bytes).toBeGreaterThan(MAX_DOWNLOAD_BYTES);
    expect(d.bytes).toBeLessThan(64 * 1024 * 1024);
    const refused = await s.fails('downloads.get', { download_id: 'd1' }, -32000);
    expect(refused.message).toContain('refused');
    // Nothing of it was kept.
    expect(s.record().downloads.directory).toBeUndefined();

    // With a Content-Length past the cap it is refused from its first byte.
    await s.call('page.click', { selector: '#big-length' });
    const early = await s.ended('d2');
    expect(early).toMatchObject({ state: 'refused', bytes: 8 * 1024 * 1024 });
    const events = s
      .record()
      .events.since(0)
      .events.filter((e) => e.kind === 'download');
    expect(events.map((e) => (e.kind === 'download' ? e.state : ''))).toEqual([
      expect.stringMatching(/^refused: over MAX_DOWNLOAD_BYTES/),
      expect.stringMatching(/^refused: over MAX_DOWNLOAD_BYTES/),
    ]);
    await s.close();
  });

  it('downloads past MAX_SESSION_DOWNLOAD_BYTES and MAX_SESSION_DOWNLOADS are refused', async () => {
    const s = await open('/files/downloads');
    for (const id of ['d1', 'd2', 'd3']) {
      await s.call('page.click', { selector: '#medium' });
      await s.ended(id);
    }
    const [d1, d2, d3] = await s.list();
    expect([d1?.state, d2?.state]).toEqual(['saved', 'saved']);
    expect(d3?.state).toBe('refused');
    expect(d3?.reason).toContain('MAX_SESSION_DOWNLOAD_BYTES');
    // The count: MAX_SESSION_DOWNLOADS started, refused or not; the next one is refused too.
    for (let n = 4; n <= MAX_SESSION_DOWNLOADS + 1; n++) {
      await s.call('page.click', { selector: '#attachment' });
      await s.ended(`d${n}`);
    }
    const all = await s.list();
    expect(all).toHaveLength(MAX_SESSION_DOWNLOADS + 1);
    expect(all.at(-2)?.state).toBe('saved');
    expect(all.at(-1)).toMatchObject({ state: 'refused' });
    expect(all.at(-1)?.reason).toContain('MAX_SESSION_DOWNLOADS');
    // A page that downloads without end: past REFUSED_LISTED refusals the rest are only cancelled.
    for (let n = all.length; n < MAX_SESSION_DOWNLOADS + REFUSED_LISTED + 3; n++)
      await s.call('page.click', { selector: '#attachment' });
    await waitFor(
      () => s.record().downloads.list().length === MAX_SESSION_DOWNLOADS + REFUSED_LISTED,
      20_000,
      'the list to reach its bound',
    );
    await waitFor(
      async () => {
        const logs = await s.call<{ console: { text: string }[] }>('logs.pull');
        return logs.console.some((l) => l.text.includes('without being listed'));
      },
      20_000,
      'the note of unlisted downloads',
    );
    expect((await s.list()).length).toBe(MAX_SESSION_DOWNLOADS + REFUSED_LISTED);
    await s.close();
  });

  it('downloads.get reads a file in slices with nextOffset, and refuses bad offsets and ids', async () => {
    const s = await open('/files/downloads');
    await s.call('page.click', { selector: '#medium' });
    expect((await s.ended('d1')).state).toBe('saved');
    const parts: Buffer[] = [];
    let offset: number | undefined = 0;
    let calls = 0;
    while (offset !== undefined) {
      const slice: Slice = await s.call<Slice>('downloads.get', {
        download_id: 'd1',
        offset,
        maxBytes: 128_000,
      });
      expect(slice.offset).toBe(offset);
      expect(slice.size).toBe(MEDIUM_BYTES);
      expect(slice.mime).toBe('application/octet-stream');
      parts.push(Buffer.from(slice.base64, 'base64'));
      offset = slice.nextOffset;
      calls++;
    }
    expect(calls).toBe(3);
    expect(Buffer.concat(parts).equals(pattern(0, MEDIUM_BYTES))).toBe(true);
    const tail = await s.call<Slice>('downloads.get', { download_id: 'd1', offset: MEDIUM_BYTES - 10 });
    expect(Buffer.from(tail.base64, 'base64').equals(pattern(MEDIUM_BYTES - 10, 10))).toBe(true);
    expect(tail.nextOffset).toBeUndefined();

    await s.fails('downloads.get', { download_id: 'd1', offset: MEDIUM_BYTES + 1 }, -32602);
    await s.fails('downloads.get', { download_id: 'd1', maxBytes: MAX_DOWNLOAD_CHUNK_BYTES + 1 }, -32602);
    const unknown = await s.fails('downloads.get', { download_id: 'd9' }, -32602);
    expect(unknown.message).toContain('downloads.list');
    await s.fails('downloads.get', { download_id: 'x1' }, -32602);
    await s.fails('downloads.get', { download_id: 'd1', extra: 1 }, -32602);
    await s.close();
  });

  it('downloads.get encoding text: a text file as text, no slice cutting a character, a binary file refused', async () => {
    const s = await open('/files/downloads');
    await s.call('page.click', { selector: '#attachment' });
    expect((await s.ended('d1')).state).toBe('saved');
    const whole = await s.call<Slice & { text: string }>('downloads.get', {
      download_id: 'd1',
      encoding: 'text',
    });
    expect(whole.text).toBe(ATTACHMENT_TEXT);
    expect(whole).not.toHaveProperty('base64');
    // Slices of 5 bytes cut '—' (3 bytes), 'é' (2) and '✓' (3) somewhere: each slice ends before
    // the character it would cut, and the slices add up to the file.
    let text = '';
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const slice: Slice & { text: string } = await s.call('downloads.get', {
        download_id: 'd1',
        encoding: 'text',
        offset,
        maxBytes: 5,
      });
      expect(slice.bytes).toBe(Buffer.byteLength(slice.text));
      text += slice.text;
      offset = slice.nextOffset;
    }
    expect(text).toBe(ATTACHMENT_TEXT);
    await s.call('page.click', { selector: '#medium' });
    expect((await s.ended('d2')).state).toBe('saved');
    const binary = await s.fails('downloads.get', { download_id: 'd2', encoding: 'text' }, -32602);
    expect(binary.message).toContain('encoding base64');
    await s.fails('downloads.get', { download_id: 'd1', encoding: 'utf16' }, -32602);
    await s.close();
  });

  it('a link or a navigation to a host outside the allow-list downloads nothing, and the decoy sees no hit', async () => {
    if (decoy === undefined) throw new Error('no decoy');
    const blocked = `${decoy.url}/files/attachment.txt`;
    const s = await open(`/files/downloads?blocked=${encodeURIComponent(blocked)}`);
    await s.call('page.click', { selector: '#blocked' }).catch((error: unknown) => {
      // The click itself may fail as its navigation is refused; either way nothing may download.
      if (!(error instanceof RpcCallError)) throw error;
    });
    await s.fails('page.goto', { url: blocked }, -32011);
    // A download would have been reported by now: the click's navigation was answered by the proxy.
    await s.call('page.goto', { url: `${suite.fixture.url}/files/attachment.txt` });
    expect((await s.list()).map((d) => d.url)).toEqual([`${suite.fixture.url}/files/attachment.txt`]);
    expect(decoy.hits).toEqual([]);
    await s.close();
  });
});

describe('unknown session', () => {
  it('downloads.get and page.upload answer SESSION_NOT_FOUND for an unknown id', async () => {
    const session_id = 's_00000000-0000-4000-8000-000000000000';
    await rpcFailure(suite.service.call('downloads.get', { session_id, download_id: 'd1' }), -32010);
    await rpcFailure(suite.service.call('page.upload', { session_id, selector: 'input', files: [] }), -32010);
  });
});

describe('downloads are deleted whenever the session ends', () => {
  /** A session with one saved download; its directory. */
  async function withDownload(service: TestService, fixtureUrl: string) {
    const { session_id } = await service.call<{ session_id: string }>('session.create', {});
    const nav = await service.call<{ download?: Download }>('page.goto', {
      session_id,
      url: `${fixtureUrl}/files/attachment.txt`,
    });
    expect(nav.download?.state).toBe('saved');
    const dir = await service.running.services.sessions.get(session_id)?.downloads.directory;
    if (dir === undefined) throw new Error('no download directory');
    expect(existsSync(dir)).toBe(true);
    return { session_id, dir };
  }

  const gone = (dir: string) => waitFor(() => !existsSync(dir), 10_000, `${dir} to be deleted`);

  it('by session.close', async () => {
    const { session_id, dir } = await withDownload(suite.service, suite.fixture.url);
    await suite.service.call('session.close', { session_id });
    await gone(dir);
  });

  it('by idle expiry', async () => {
    const { session_id, dir } = await withDownload(suite.service, suite.fixture.url);
    const sessions = suite.service.running.services.sessions;
    // The janitor's sweep, run now as if the TTL had passed (every other session of this suite is closed).
    expect(await sessions.sweep(Date.now() + 24 * 3600_000)).toBeGreaterThanOrEqual(1);
    await gone(dir);
    const late = await rpcFailure(suite.service.call('downloads.list', { session_id }), -32010);
    expect(late.data?.reason).toBe('expired');
  });

  it('by service shutdown, and by the browser dying', async () => {
    const before = new Set(browserProcesses().map((p) => p.pid));
    const service = await startTestService();
    let closed = false;
    try {
      const browser = browserProcesses().find((p) => !before.has(p.pid));
      if (browser === undefined) throw new Error('no browser process of the new service');
      const lost = await withDownload(service, suite.fixture.url);
      process.kill(browser.pid, 'SIGKILL');
      await gone(lost.dir);
      await waitFor(
        async () => (await fetch(`${service.url}/readyz`)).status === 200,
        60_000,
        'the relaunch',
      );
      const shut = await withDownload(service, suite.fixture.url);
      closed = true;
      await service.close();
      await gone(shut.dir);
    } finally {
      if (!closed) await service.close();
    }
  });
});

describe('page.drop', () => {
  interface Dropped {
    files: { name: string; size: number; type: string; text: string }[];
    data: Record<string, string>;
    target: string;
  }
  const dropped = async (s: Awaited<ReturnType<typeof open>>): Promise<Dropped> => {
    await waitFor(async () => (await s.text('#out-zone')) !== 'none', 5000, 'the drop readout');
    return JSON.parse(await s.text('#out-zone')) as Dropped;
  };

  it('drops files and data onto a drop zone that is not a file input', async () => {
    const s = await open('/files/drop');
    const answer = await s.call('page.drop', {
      selector: '#zone',
      files: [
        { name: 'a.txt', mimeType: 'text/plain', text: 'alpha' },
        { name: '../b.csv', mimeType: 'text/csv', base64: b64('x,y') },
      ],
      data: { 'text/plain': 'hello', 'text/uri-list': `${suite.fixture.url}/files/upload` },
    });
    expect(answer).toMatchObject({
      ok: true,
      handled: true,
      files: [
        { name: 'a.txt', mimeType: 'text/plain', bytes: 5 },
        { name: 'b.csv', mimeType: 'text/csv', bytes: 3 },
      ],
      types: ['text/plain', 'text/uri-list'],
    });
    const got = await dropped(s);
    expect(got.files).toEqual([
      { name: 'a.txt', size: 5, type: 'text/plain', text: 'alpha' },
      { name: 'b.csv', size: 3, type: 'text/csv', text: 'x,y' },
    ]);
    expect(got.data).toEqual({ 'text/plain': 'hello', 'text/uri-list': `${suite.fixture.url}/files/upload` });
    // The events reach what a pointer at the zone's centre hits: the zone itself (its text is at the top).
    expect(got.target).toBe('zone');
    await s.close();
  });

  it("drops data alone onto a drop zone's child: the events bubble to the zone", async () => {
    const s = await open('/files/drop');
    await s.call('page.drop', { selector: '#inner', data: { 'text/plain': 'onto the child' } });
    const got = await dropped(s);
    expect(got).toMatchObject({ files: [], data: { 'text/plain': 'onto the child' }, target: 'inner' });
    await s.close();
  });

  it('fails on an element that is not a drop zone, with dragleave and no drop, as a browser does', async () => {
    const s = await open('/files/drop');
    const error = await s.fails('page.drop', { selector: '#plainbox', data: { 'text/plain': 'x' } }, -32000);
    expect(error.message).toMatch(/not a drop zone/);
    expect(await s.text('#out-plainbox')).toBe('left 1');
    await s.close();
  });

  it('refuses bad input: nothing to drop, a bad type, both or neither of base64 and text, over the cap', async () => {
    const s = await open('/files/drop');
    await s.fails('page.drop', { selector: '#zone' }, -32602);
    await s.fails('page.drop', { selector: '#zone', files: [], data: {} }, -32602);
    await s.fails('page.drop', { selector: '#zone', data: { plain: 'x' } }, -32602);
    await s.fails('page.drop', { selector: '#zone', files: [{ name: 'x.txt' }] }, -32602);
    await s.fails('page.drop', { selector: '#zone', files: [{ name: 'x.txt', base64: 'abc' }] }, -32602);
    await s.fails(
      'page.drop',
      { selector: '#zone', data: Object.fromEntries([...Array(9).keys()].map((i) => [`text/t${i}`, 'x'])) },
      -32602,
    );
    await s.fails('page.drop', { selector: '#missing', data: { 'text/plain': 'x' }, timeout: 300 }, -32001);
    expect(await s.text('#out-zone')).toBe('none');
    await s.close();
  });
});

describe('page.upload', () => {
  interface Chosen {
    name: string;
    size: number;
    type: string;
    text?: string;
  }
  const readout = async (s: Awaited<ReturnType<typeof open>>, id: string): Promise<Chosen[]> =>
    JSON.parse(await s.text(`#out-${id}`)) as Chosen[];
  const file = (name: string, text: string, mimeType = 'text/plain') => ({
    name,
    mimeType,
    base64: b64(text),
  });

  it('sets a visible file input', async () => {
    const s = await open('/files/upload');
    const answer = await s.call('page.upload', { selector: '#visible', files: [file('a.txt', 'alpha')] });
    expect(answer).not.toHaveProperty('navigated');
    expect(answer).toMatchObject({
      ok: true,
      via: 'input',
      files: [{ name: 'a.txt', mimeType: 'text/plain', bytes: 5 }],
    });
    await waitFor(async () => (await s.text('#out-visible')) !== 'none', 5000, 'the readout');
    expect(await readout(s, 'visible')).toEqual([
      { name: 'a.txt', size: 5, type: 'text/plain', text: 'alpha' },
    ]);
    // An empty list clears it.
    await s.call('page.upload', { selector: '#visible', files: [] });
    expect(await s.evaluate<number>("document.querySelector('#visible').files.length")).toBe(0);
    await s.close();
  });

  it('takes a file as text (sent as UTF-8) as well as base64, exactly one of them', async () => {
    const s = await open('/files/upload');
    const answer = await s.call('page.upload', {
      selector: '#visible',
      files: [{ name: 'notes.csv', mimeType: 'text/csv', text: 'a,b\ncafé,1\n' }],
    });
    expect(answer).toMatchObject({ files: [{ name: 'notes.csv', mimeType: 'text/csv', bytes: 12 }] });
    await waitFor(async () => (await s.text('#out-visible')) !== 'none', 5000, 'the readout');
    expect(await readout(s, 'visible')).toEqual([
      { name: 'notes.csv', size: 12, type: 'text/csv', text: 'a,b\ncafé,1\n' },
    ]);
    await s.fails('page.upload', { selector: '#visible', files: [{ name: 'x.txt' }] }, -32602);
    await s.fails(
      'page.upload',
      { selector: '#visible', files: [{ name: 'x.txt', text: 'a', base64: b64('a') }] },
      -32602,
    );
    await s.close();
  });

  it('sets a hidden file input directly, and through the button that opens it (by selector and by ref)', async () => {
    const s = await open('/files/upload');
    const direct = await s.call<{ via: string }>('page.upload', {
      selector: '#hidden',
      files: [file('direct.csv', 'a,b\n1,2\n', 'text/csv')],
    });
    expect(direct.via).toBe('input');
    await waitFor(async () => (await s.text('#out-hidden')) !== 'none', 5000, 'the readout');
    expect(await readout(s, 'hidden')).toEqual([
      { name: 'direct.csv', size: 8, type: 'text/csv', text: 'a,b\n1,2\n' },
    ]);

    const chooser = await s.call<{ via: string }>('page.upload', {
      selector: '#pick',
      files: [file('b.txt', 'bravo')],
    });
    expect(chooser.via).toBe('chooser');
    await waitFor(async () => (await readout(s, 'hidden'))[0]?.name === 'b.txt', 5000, 'the readout');
    expect(await readout(s, 'hidden')).toEqual([
      { name: 'b.txt', size: 5, type: 'text/plain', text: 'bravo' },
    ]);

    const snapshot = (await s.call<{ snapshot: string }>('page.snapshot', { maxChars: 100_000 })).snapshot;
    const ref = refOf(snapshot, /button "Choose a file…"/);
    await s.call('page.upload', { ref, files: [file('c.txt', 'charlie')] });
    await waitFor(async () => (await readout(s, 'hidden'))[0]?.name === 'c.txt', 5000, 'the readout');
    await s.close();
  });

  it('a multiple input takes several files; a single one, or a single chooser, refuses several', async () => {
    const s = await open('/files/upload');
    await s.call('page.upload', { selector: '#multi', files: [file('one.txt', '1'), file('two.txt', '22')] });
    await waitFor(async () => (await s.text('#out-multi')) !== 'none', 5000, 'the readout');
    expect((await readout(s, 'multi')).map((f) => [f.name, f.size])).toEqual([
      ['one.txt', 1],
      ['two.txt', 2],
    ]);
    const two = [file('one.txt', '1'), file('two.txt', '2')];
    const single = await s.fails('page.upload', { selector: '#visible', files: two }, -32602);
    expect(single.message).toContain('multiple');
    await s.fails('page.upload', { selector: '#pick', files: two }, -32602);
    expect(await s.text('#out-visible')).toBe('none');
    await s.close();
  });

  it('an element that is no file input and opens no chooser fails clearly', async () => {
    const s = await open('/files/upload');
    const error = await s.fails(
      'page.upload',
      { selector: '#plain', files: [file('a.txt', 'a')], timeout: 1000 },
      -32000,
    );
    expect(error.message).toContain('opened no file chooser');
    expect(await s.text('#out-plain')).toBe('clicked');
    await s.fails(
      'page.upload',
      { selector: '#nothing-here', files: [file('a.txt', 'a')], timeout: 500 },
      -32001,
    );
    await s.close();
  });

  it('refuses files over MAX_UPLOAD_BYTES, bad base64, too many files, and cleans names', async () => {
    const s = await open('/files/upload');
    const big = await s.fails(
      'page.upload',
      { selector: '#visible', files: [file('big.bin', 'x'.repeat(MAX_UPLOAD_BYTES + 1))] },
      -32003,
    );
    expect(big.message).toContain('MAX_UPLOAD_BYTES');
    const half = 'y'.repeat(MAX_UPLOAD_BYTES / 2 + 1);
    await s.fails('page.upload', { selector: '#multi', files: [file('a', half), file('b', half)] }, -32003);
    const files = (base64: string) => [{ name: 'a.txt', mimeType: 'text/plain', base64 }];
    await s.fails('page.upload', { selector: '#visible', files: files('not base64!') }, -32602);
    await s.fails('page.upload', { selector: '#visible', files: files('YWJj\nZGVm') }, -32602);
    const unpadded = await s.fails('page.upload', { selector: '#visible', files: files('YWJjZA') }, -32602);
    expect(unpadded.message).toContain('padded');
    const many = Array.from({ length: MAX_UPLOAD_FILES + 1 }, (_, i) => file(`${i}.txt`, 'z'));
    await s.fails('page.upload', { selector: '#multi', files: many }, -32602);
    await s.fails(
      'page.upload',
      { selector: '#visible', files: [{ name: 'a', mimeType: 'not a type', base64: '' }] },
      -32602,
    );
    await s.fails('page.upload', { files: files('') }, -32602);
    expect(await s.text('#out-visible')).toBe('none');

    const answer = await s.call<{ files: { name: string }[] }>('page.upload', {
      selector: '#visible',
      files: [{ name: '../../etc/pass\u0007wd', base64: b64('x') }],
    });
    expect(answer.files).toEqual([{ name: 'passwd', mimeType: 'application/octet-stream', bytes: 1 }]);
    await waitFor(async () => (await s.text('#out-visible')) !== 'none', 5000, 'the readout');
    expect((await readout(s, 'visible'))[0]?.name).toBe('passwd');
    await s.close();
  });

  it('MAX_UPLOAD_BYTES defaults to what BODY_LIMIT carries as base64, and may not exceed it', () => {
    expect(loadConfig({}).maxUploadBytes).toBe(Math.floor((512 * 1024 * 3) / 4));
    expect(loadConfig({ BODY_LIMIT: '4mb' }).maxUploadBytes).toBe(3 * 1024 * 1024);
    expect(loadConfig({ MAX_UPLOAD_BYTES: '1000' }).maxUploadBytes).toBe(1000);
    expect(() => loadConfig({ MAX_UPLOAD_BYTES: '1000000' })).toThrow(/BODY_LIMIT/);
  });
});
