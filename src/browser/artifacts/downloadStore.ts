// A session's downloads: each one its pages start is saved in a private temporary directory of the
// session, within a size cap per file and per session and a count cap, listed, read back in
// slices, and deleted with the session. One file of ~430 lines on purpose: the watch of a download
// while it streams (CDP progress matched to Playwright's download), its end, the caps and the reads
// all update the same entries and byte counts; split, each part would reach into the others' state.
import { stat } from 'node:fs/promises';
import { Type, type Static } from '@sinclair/typebox';
import type { CDPSession, Download, Page, Response } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';
import { cleanFileName, mimeOfName } from './fileNames.js';
import { capUrl } from '../engine/pageGuards.js';
import type { SessionEvents } from '../events/sessionEvents.js';
import { keptEntry, readFileSlice, type FileSlice, type SessionFiles } from './sessionFiles.js';

/** Responses of documents remembered for their MIME type and length: a download asks for its URL's. */
const REMEMBERED_RESPONSES = 32;
/** Downloads Chromium announced that Playwright has not reported yet (or the other way round). */
const UNMATCHED_PROGRESS = 64;
/**
 * Playwright reports a navigation's download a few milliseconds after the navigation failed with
 * "Download is starting"; one not reported within this was not kept (the session was ending).
 */
const DOWNLOAD_REPORT_MS = 5_000;
/** Downloads past MAX_SESSION_DOWNLOADS still listed (as refused) before the rest are only cancelled. */
export const REFUSED_LISTED = 20;
/** A MIME type longer than this is not one. */
const MAX_MIME_CHARS = 255;

export interface DownloadLimits {
  /** MAX_DOWNLOAD_BYTES: one file. */
  maxBytes: number;
  /** MAX_SESSION_DOWNLOAD_BYTES: the kept files together. */
  maxSessionBytes: number;
  /** MAX_SESSION_DOWNLOADS: downloads one session may start. */
  maxCount: number;
}

/** What downloads.list and a navigation's answer say of a download, declared once. */
export const DownloadInfoSchema = Type.Object({
  download_id: Type.String({ description: 'd1, d2 … in the order the session started them.' }),
  name: Type.String({ description: 'The file name the server suggested, without any path.' }),
  url: Type.String(),
  bytes: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'The size kept (saved), or the size known when it was refused; null while unknown or when it failed.',
  }),
  mime: Type.Union([Type.String(), Type.Null()], {
    description: "The response's Content-Type, else the type of the name's extension.",
  }),
  state: Type.Union(
    [Type.Literal('downloading'), Type.Literal('saved'), Type.Literal('refused'), Type.Literal('failed')],
    {
      description:
        'saved: kept, downloads.get reads it; refused: over a cap, cancelled and deleted; failed: the transfer failed or the session was ending; downloading: not ended yet.',
    },
  ),
  reason: Type.Optional(Type.String({ description: 'Why it was refused or failed.' })),
  page_id: Type.Optional(Type.String({ description: 'The page of the session that started it.' })),
  timestamp: Type.String({ description: 'When it started.' }),
});

export type DownloadInfo = Static<typeof DownloadInfoSchema>;
export type DownloadState = DownloadInfo['state'];

interface Entry {
  info: DownloadInfo;
  download: Download;
  /** Set when the store cancels it (over a cap): the end is then recorded as refused. */
  refusal?: string;
  /** The Chromium download id, once CDP progress and Playwright's event are matched. */
  guid?: string;
  /** The most bytes known of it while it streams (progress, Content-Length). */
  streamed: number;
  /** Resolves once the download ended and its outcome is recorded. */
  ended: Promise<void>;
}

interface Progress {
  url: string;
  received: number;
  total: number;
  entry?: Entry;
}

/** `text/plain; charset=utf-8` → `text/plain`; undefined for a header that is not a MIME type. */
function mimeOfHeader(header: string | undefined): string | undefined {
  const essence = header?.split(';')[0]?.trim().toLowerCase();
  return essence !== undefined && /^[\w.+-]+\/[\w.+-]+$/.test(essence) && essence.length <= MAX_MIME_CHARS
    ? essence
    : undefined;
}

/** Records a line of the service's own in the session's console log. */
type Note = (type: string, text: string) => void;

export class DownloadStore {
  private readonly entries = new Map<string, Entry>();
  private readonly progress = new Map<string, Progress>();
  private readonly responses = new Map<string, { mime?: string; length?: number; status: number }>();
  private keptBytes = 0;
  private next = 1;
  private disposed = false;
  /** Downloads cancelled past the count cap without an entry. */
  private unlisted = 0;
  private readonly waiters = new Set<(entry: Entry) => void>();

  constructor(
    private readonly limits: DownloadLimits,
    private readonly events: SessionEvents,
    private readonly note: Note,
    /** The session's directory, shared with its traces; the registry removes it when the session ends. */
    private readonly files: SessionFiles,
  ) {}

  /** Starts watching a page of the session: its downloads, and their size while they stream. */
  attach(page: Page, pageId?: string): void {
    page.on('response', (response) => this.remember(response));
    page.on('download', (download) => this.started(download, pageId));
    this.watchProgress(page).catch((error: unknown) =>
      // A page closed before the watch was set up has no downloads left to watch.
      this.note('info', `download sizes of a page are checked only at the end: ${String(error)}`),
    );
  }

  /** Every download of the session, oldest first. */
  list(): DownloadInfo[] {
    return [...this.entries.values()].map((e) => ({ ...e.info }));
  }

  /** The kept file's directory; undefined until the first file of the session is saved. */
  get directory(): Promise<string> | undefined {
    return this.files.created;
  }

  /** A mark of now: firstSince(mark) waits for the first download started after it. */
  mark(): number {
    return this.next;
  }

  /**
   * The first download started since `mark`, once it ended or `timeoutMs` passed (then still
   * downloading); undefined when none started within `timeoutMs`. A navigation that turned into a
   * download waits here: Playwright reports the download just after the navigation fails.
   */
  async firstSince(mark: number, timeoutMs: number): Promise<DownloadInfo | undefined> {
    const deadline = Date.now() + timeoutMs;
    const entry =
      this.entries.get(`d${mark}`) ??
      (await new Promise<Entry | undefined>((resolve) => {
        const waiter = (e: Entry): void => {
          if (e.info.download_id !== `d${mark}`) return;
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(e);
        };
        const timer = setTimeout(
          () => {
            this.waiters.delete(waiter);
            resolve(undefined);
          },
          Math.min(timeoutMs, DOWNLOAD_REPORT_MS),
        );
        this.waiters.add(waiter);
      }));
    if (entry === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      entry.ended,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
    ]).finally(() => clearTimeout(timer));
    return { ...entry.info };
  }

  /**
   * Waits until every download started since `mark` has ended, or `timeoutMs` passed: an action
   * that started a download reports it saved (or refused), not half-way, when it ends in time.
   */
  async settledSince(mark: number, timeoutMs: number): Promise<void> {
    const ended: Promise<unknown>[] = [];
    for (let n = mark; n < this.next; n++) {
      const entry = this.entries.get(`d${n}`);
      if (entry !== undefined) ended.push(entry.ended);
    }
    if (ended.length === 0 || timeoutMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(ended),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]).finally(() => clearTimeout(timer));
  }

  /** Reads up to maxBytes of a saved download from offset. */
  async read(id: string, offset: number, maxBytes: number): Promise<FileSlice & { info: DownloadInfo }> {
    const entry = keptEntry(
      this.entries,
      id,
      'download',
      `No download ${id} in this session; downloads.list lists the ones it has.`,
    );
    const { info } = entry;
    if (info.state !== 'saved')
      throw new ServiceError(
        'ACTION_FAILED',
        info.state === 'downloading'
          ? `Download ${id} is still in progress; call downloads.get again once downloads.list says saved.`
          : `Download ${id} was ${info.state} (${info.reason ?? 'no reason given'}): nothing of it is kept.`,
        { download_id: id, state: info.state },
      );
    const size = info.bytes ?? 0;
    const data = await readFileSlice(await this.files.path(id), size, offset, maxBytes, id);
    return { data, size, info: { ...info } };
  }

  /**
   * Cancels the downloads still streaming and deletes the session's directory (every kept file of
   * the session, its traces included); later downloads are cancelled. Never throws.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const entry of this.entries.values())
      if (entry.info.state === 'downloading')
        // Safe to ignore: a cancel that fails finds the download ended or its context closing,
        // which ends it too; finish() then records it as failed and writes nothing.
        entry.download.cancel().catch(() => undefined);
    await this.files.dispose();
  }

  private remember(response: Response): void {
    const request = response.request();
    // Only a document can turn into a download; subresources are not worth a headers() each.
    if (!request.isNavigationRequest()) return;
    const headers = response.headers();
    const length = Number.parseInt(headers['content-length'] ?? '', 10);
    this.responses.delete(request.url());
    this.responses.set(request.url(), {
      mime: mimeOfHeader(headers['content-type']),
      length: Number.isFinite(length) ? length : undefined,
      status: response.status(),
    });
    if (this.responses.size > REMEMBERED_RESPONSES) this.forgetOldest(this.responses);
  }

  /** The status of the last document response for `url`, when the store saw one. */
  statusOf(url: string): number | undefined {
    return this.responses.get(url)?.status;
  }

  private forgetOldest(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }

  /** What one more file may weigh now: the per-file cap, or what is left of the session's. */
  private allowance(entry: Entry): { bytes: number; limit: string } {
    // Downloads still streaming count too: many at once must not pass the session's cap together.
    let streaming = 0;
    for (const other of this.entries.values())
      if (other !== entry && other.info.state === 'downloading' && other.refusal === undefined)
        streaming += other.streamed;
    const left = this.limits.maxSessionBytes - this.keptBytes - streaming;
    return left < this.limits.maxBytes
      ? { bytes: left, limit: `MAX_SESSION_DOWNLOAD_BYTES (${this.limits.maxSessionBytes}) for the session` }
      : { bytes: this.limits.maxBytes, limit: `MAX_DOWNLOAD_BYTES (${this.limits.maxBytes})` };
  }

  private started(download: Download, pageId: string | undefined): void {
    const url = download.url();
    if (this.disposed) {
      // The session is ending: nothing may be written for it any more. Safe to ignore a failed
      // cancel: the context is closing, which ends the download and deletes Playwright's copy.
      download.cancel().catch(() => undefined);
      return;
    }
    if (this.entries.size >= this.limits.maxCount + REFUSED_LISTED) {
      // A page that starts downloads without end: past the count cap a few are listed as refused,
      // then they are only cancelled, so the list stays bounded.
      download.cancel().catch((error: unknown) => {
        this.note('warning', `could not cancel a download past the cap: ${String(error)}`);
      });
      if (this.unlisted++ === 0)
        this.note('download', `more downloads past MAX_SESSION_DOWNLOADS are cancelled without being listed`);
      return;
    }
    const id = `d${this.next++}`;
    const name = cleanFileName(download.suggestedFilename());
    const response = this.responses.get(url);
    const entry: Entry = {
      info: {
        download_id: id,
        name,
        url: capUrl(url),
        bytes: response?.length ?? null,
        mime: response?.mime ?? mimeOfName(name),
        state: 'downloading',
        ...(pageId === undefined ? {} : { page_id: pageId }),
        timestamp: new Date().toISOString(),
      },
      download,
      streamed: 0,
      ended: Promise.resolve(),
    };
    this.entries.set(id, entry);
    if (this.entries.size > this.limits.maxCount)
      this.refuse(entry, `over MAX_SESSION_DOWNLOADS (${this.limits.maxCount}) for the session`);
    else if (response?.length !== undefined) this.check(entry, response.length);
    for (const [guid, p] of this.progress)
      if (p.entry === undefined && p.url === url) {
        this.match(guid, p, entry);
        break;
      }
    entry.ended = this.finish(entry);
    for (const waiter of [...this.waiters]) waiter(entry);
  }

  /** Cancels a download over the allowance; it ends as refused. */
  private check(entry: Entry, bytes: number): void {
    entry.streamed = Math.max(entry.streamed, bytes);
    const allowance = this.allowance(entry);
    if (bytes > allowance.bytes) {
      entry.info.bytes = bytes;
      this.refuse(entry, `over ${allowance.limit}`);
    }
  }

  private refuse(entry: Entry, reason: string): void {
    if (entry.refusal !== undefined) return;
    entry.refusal = reason;
    entry.download.cancel().catch((error: unknown) => {
      this.note('warning', `could not cancel download ${entry.info.download_id}: ${String(error)}`);
    });
  }

  private match(guid: string, progress: Progress, entry: Entry): void {
    progress.entry = entry;
    entry.guid = guid;
    this.check(entry, Math.max(progress.received, progress.total));
  }

  /**
   * Chromium's progress of this page's downloads while they stream, through a CDP session of the
   * page: Playwright reports a download only at its start and its end, and a download refused only
   * at its end would first have filled the disk. Chromium reports about every 0.5 s, so a download
   * is cancelled at most that much transfer past its cap; its partial file is deleted by Chromium.
   */
  private async watchProgress(page: Page): Promise<void> {
    const cdp: CDPSession = await page.context().newCDPSession(page);
    cdp.on('Page.downloadWillBegin', ({ guid, url }) => {
      this.progress.set(guid, { url, received: 0, total: 0 });
      if (this.progress.size > UNMATCHED_PROGRESS) this.forgetOldest(this.progress);
      const entry = [...this.entries.values()].find(
        (e) => e.guid === undefined && e.info.state === 'downloading' && e.download.url() === url,
      );
      const progress = this.progress.get(guid);
      if (entry !== undefined && progress !== undefined) this.match(guid, progress, entry);
    });
    cdp.on('Page.downloadProgress', ({ guid, receivedBytes, totalBytes, state }) => {
      const progress = this.progress.get(guid);
      if (progress === undefined) return;
      progress.received = receivedBytes;
      progress.total = totalBytes;
      if (progress.entry !== undefined && progress.entry.info.state === 'downloading')
        this.check(progress.entry, Math.max(receivedBytes, totalBytes));
      if (state !== 'inProgress' && progress.entry !== undefined) this.progress.delete(guid);
    });
    await cdp.send('Page.enable');
  }

  /** Waits for the download's end, keeps it within the caps or deletes it, and records the outcome. */
  private async finish(entry: Entry): Promise<void> {
    const { info, download } = entry;
    try {
      const failure = await download.failure();
      if (entry.refusal !== undefined || failure !== null || this.disposed) {
        info.state = entry.refusal !== undefined ? 'refused' : 'failed';
        info.reason = entry.refusal ?? failure ?? 'the session ended';
      } else {
        const size = (await stat(await download.path())).size;
        info.bytes = size;
        this.check(entry, size);
        if (entry.refusal !== undefined) {
          info.state = 'refused';
          info.reason = entry.refusal;
        } else {
          // Counted before the copy, so two downloads ending together cannot both pass the cap.
          this.keptBytes += size;
          try {
            await download.saveAs(await this.files.path(info.download_id));
          } catch (error) {
            this.keptBytes -= size;
            throw error;
          }
          info.state = 'saved';
          // saveAs creates the directory it writes to: one removed meanwhile is removed again.
          await this.files.removeIfEnded();
        }
      }
    } catch (error) {
      info.state = 'failed';
      info.reason = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
    }
    // Playwright's own copy (its artifacts directory) goes either way; the context would delete it
    // only when it closes.
    await download.delete().catch((error: unknown) => {
      if (!this.disposed)
        this.note('warning', `could not delete a download's temporary file: ${String(error)}`);
    });
    if (info.state === 'failed') info.bytes = null;
    this.events.push({
      kind: 'download',
      download_id: info.download_id,
      name: info.name,
      bytes: info.bytes,
      mime: info.mime,
      state: info.reason === undefined ? info.state : `${info.state}: ${info.reason}`,
      ...(info.page_id === undefined ? {} : { page_id: info.page_id }),
    });
    this.note(
      'download',
      `download ${info.download_id} ${info.state}: ${info.name} (${info.bytes ?? '?'} bytes, ${info.mime ?? 'unknown type'})${
        info.reason === undefined ? '' : ` ${info.reason}`
      }`,
    );
  }
}
