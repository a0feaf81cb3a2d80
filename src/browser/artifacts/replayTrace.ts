// A session's timeline as a Playwright trace: the zip `npx playwright show-trace` opens. Each call
// of the action timeline is an action (its method and target as the title, its masked params, its
// duration, its error), each replay picture a screencast frame at the end of its call, the console
// and the page errors in the console tab, requests and responses in the network tab. It is built
// from what the session keeps for replay (its event log and pictures), so a closed session's trace
// can be exported as long as the service keeps its record, and a session that never traced has one.
// The trace format is Playwright's version 8, which every later viewer reads (it upgrades it).
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ServiceError } from '../../errors/serviceError.js';
import { ExportSlot } from './exportSlot.js';
import type { LogEvent } from '../events/sessionLog.js';
import { imageSize } from './imageSize.js';
import { harEntry, pageOf, paramsOf, pictureSnapshot, text } from './traceEvents.js';
import type { ReplayPictures } from './replayPictures.js';
import { zipOf, type ZipEntry } from './zipFile.js';

/** The trace format written: 8, read by Playwright 1.50 and every viewer after it. */
export const TRACE_FORMAT_VERSION = 8;
/**
 * The most a trace holds before compression. At the default caps (1000 log entries of at most 4000
 * characters a field, 8 MiB of pictures, each also inline in its After view) a trace stays under
 * about 60 MiB; larger MAX_SESSION_EVENTS or MAX_REPLAY_BYTES could pass this, and are refused.
 */
export const MAX_TRACE_EXPORT_BYTES = 96 * 1024 * 1024;
/** Log entries turned into trace events between two turns of the event loop. */
const ENTRIES_PER_TURN = 50;

/** The fields of an action entry that are its call, not facts of its report. */
const CALL_FIELDS = new Set([
  'seq',
  'kind',
  'timestamp',
  'method',
  'params',
  'target',
  'selector',
  'page_id',
  'durationMs',
  'ok',
  'code',
  'error',
  'picture',
]);

export interface ReplayTrace {
  zip: Buffer;
  /** Calls in the trace. */
  actions: number;
  /** Pictures in it (screencast frames). */
  pictures: number;
  /** Requests in its network tab. */
  requests: number;
}

/** When a second trace is asked for while one is built: try again after about this long. */
const BUSY_RETRY_MS = 2_000;
/**
 * The least time between the end of one key's trace build and the start of its next: a key
 * rebuilding a large trace back to back would hold a core (the main thread and zlib's pool) that
 * every tenant's sessions share. An unchanged session's trace is answered again without a build.
 */
export const TRACE_EXPORT_INTERVAL_MS = 1_000;
const builds = new ExportSlot('trace export', BUSY_RETRY_MS, TRACE_EXPORT_INTERVAL_MS);

/**
 * The trace of a session's log entries (oldest first) and replay pictures. It is built a few
 * entries a turn and compressed off the event loop, one at a time for the service, so the calls of
 * other sessions go on meanwhile; past MAX_TRACE_EXPORT_BYTES it is refused with LIMIT_REACHED.
 */
export function replayTrace(
  caller: string,
  sessionId: string,
  entries: readonly LogEvent[],
  pictures: ReplayPictures | undefined,
  maxBytes = MAX_TRACE_EXPORT_BYTES,
): Promise<ReplayTrace> {
  return builds.run(caller, () => buildTrace(sessionId, entries, pictures, maxBytes));
}

async function buildTrace(
  sessionId: string,
  entries: readonly LogEvent[],
  pictures: ReplayPictures | undefined,
  maxBytes: number,
): Promise<ReplayTrace> {
  const times = entries.map((e) => Date.parse(e.timestamp));
  // Trace times are milliseconds from the trace's start; an action started durationMs before it was logged.
  const firstAction = entries.find((e) => e.kind === 'action');
  const base = Math.min(
    times[0] ?? Date.now(),
    firstAction === undefined
      ? Infinity
      : Date.parse(firstAction.timestamp) - Number(firstAction.durationMs ?? 0),
  );
  /** The trace's lines as JSON text, and its bytes so far (lines and pictures). */
  const events: string[] = [];
  const network: string[] = [];
  const resources: ZipEntry[] = [];
  const stored = new Set<string>();
  let bytes = 0;
  const count = (added: number): void => {
    bytes += added;
    if (bytes > maxBytes)
      throw new ServiceError(
        'LIMIT_REACHED',
        `The trace would pass ${maxBytes} bytes: this session's log and pictures are too large to export as one trace.`,
        { limit: 'MAX_TRACE_EXPORT_BYTES', max: maxBytes },
      );
  };
  let requestCount = 0;
  const emit = (into: string[], item: unknown): void => {
    const line = `${JSON.stringify(item)}\n`;
    count(line.length);
    into.push(line);
    if (into === network) requestCount += 1;
  };
  /** The lines made so far as bytes, a turn's worth at a time (one string of them all could be tens of MB). */
  const eventBytes: Buffer[] = [];
  const networkBytes: Buffer[] = [];
  const flush = (): void => {
    eventBytes.push(Buffer.from(events.splice(0).join(''), 'utf8'));
    networkBytes.push(Buffer.from(network.splice(0).join(''), 'utf8'));
  };
  const requests = new Map<string, { entry: LogEvent; time: number }>();
  /** Each page's URL as its navigations left it, for the address bar of a call's picture. */
  const urls = new Map<string, string>();
  let viewport: { width: number; height: number } | undefined;
  let actions = 0;
  let frames = 0;

  for (const [i, entry] of entries.entries()) {
    if (i > 0 && i % ENTRIES_PER_TURN === 0) {
      flush();
      await nextTurn();
    }
    const time = (times[i] ?? base) - base;
    switch (entry.kind) {
      case 'action': {
        actions += 1;
        const callId = `call@${entry.seq}`;
        const target = text(entry.target) ?? text(entry.selector);
        const method = text(entry.method) ?? 'call';
        const result: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(entry)) if (!CALL_FIELDS.has(name)) result[name] = value;
        emit(events, {
          type: 'before',
          callId,
          stepId: callId,
          startTime: Math.max(0, time - Number(entry.durationMs ?? 0)),
          title: target === undefined ? method : `${method} ${target}`,
          class: 'Session',
          method,
          params: paramsOf(entry),
          pageId: pageOf(entry),
        });
        const picture = entry.picture === true ? pictures?.get(entry.seq) : undefined;
        const size = picture === undefined ? undefined : imageSize(picture);
        emit(events, {
          type: 'after',
          callId,
          endTime: time,
          ...(entry.ok === false
            ? { error: { name: text(entry.code) ?? 'Error', message: text(entry.error) ?? 'failed' } }
            : { result }),
          ...(size === undefined ? {} : { afterSnapshot: `after@${callId}` }),
        });
        if (picture !== undefined && size !== undefined) {
          viewport ??= size;
          const sha1 = `${createHash('sha1').update(picture).digest('hex')}.jpeg`;
          // A page that did not change between calls gives the same picture: stored once.
          if (!stored.has(sha1)) {
            stored.add(sha1);
            count(picture.length);
            resources.push({ name: `resources/${sha1}`, data: picture, stored: true });
          }
          emit(events, { type: 'screencast-frame', pageId: pageOf(entry), sha1, ...size, timestamp: time });
          const url = text(entry.url) ?? urls.get(pageOf(entry));
          emit(events, pictureSnapshot(callId, pageOf(entry), picture, size, time, url));
          frames += 1;
        }
        break;
      }
      case 'navigation': {
        const url = text(entry.url);
        if (url !== undefined) urls.set(pageOf(entry), url);
        break;
      }
      case 'console':
        emit(events, {
          type: 'console',
          time,
          pageId: pageOf(entry),
          messageType: text(entry.level) ?? 'log',
          text: text(entry.text) ?? '',
          args: [],
          location: { url: text(entry.location) ?? '', lineNumber: 0, columnNumber: 0 },
        });
        break;
      case 'pageerror':
      case 'crash':
        emit(events, {
          type: 'event',
          time,
          class: 'BrowserContext',
          method: 'pageError',
          params: {
            error: {
              error: {
                name: entry.kind === 'crash' ? 'Crash' : 'Error',
                message: text(entry.message) ?? '',
                stack: text(entry.stack) ?? '',
              },
            },
          },
          pageId: pageOf(entry),
        });
        break;
      case 'request': {
        const id = text(entry.request_id);
        if (id !== undefined) requests.set(id, { entry, time });
        break;
      }
      case 'response':
      case 'requestfailed': {
        const id = text(entry.request_id);
        const request = id === undefined ? undefined : requests.get(id);
        if (id === undefined || request === undefined) break;
        requests.delete(id);
        emit(
          network,
          entry.kind === 'response'
            ? harEntry(request.entry, request.time, entry)
            : harEntry(request.entry, request.time, undefined, entry),
        );
        break;
      }
      default:
        break;
    }
  }
  // Requests the log saw start but not end (still loading when the session closed).
  for (const { entry, time } of requests.values()) emit(network, harEntry(entry, time));

  const header = {
    version: TRACE_FORMAT_VERSION,
    type: 'context-options',
    origin: 'library',
    browserName: 'chromium',
    platform: process.platform,
    wallTime: base,
    monotonicTime: 0,
    sdkLanguage: 'javascript',
    title: `playwright-jsonrpc session ${sessionId}`,
    options: viewport === undefined ? {} : { viewport },
    contextId: sessionId,
  };
  flush();
  const zip = await zipOf([
    { name: 'trace.trace', data: Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...eventBytes]) },
    { name: 'trace.network', data: Buffer.concat(networkBytes) },
    ...resources,
  ]);
  return { zip, actions, pictures: frames, requests: requestCount };
}
