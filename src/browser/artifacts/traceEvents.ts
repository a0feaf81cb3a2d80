// The events of a replay trace (browser/artifacts/replayTrace.ts) built from one log entry each, in
// the shapes Playwright's trace viewer reads (format 8): a call's params, the After view of a
// picture, a request in the Network tab. The log keeps no headers, bodies or MIME types: those
// fields say unknown.
import type { LogEvent } from '../events/sessionLog.js';

export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** An entry's params as the object they were (the timeline keeps them as masked JSON, maybe cut). */
export function paramsOf(entry: LogEvent): Record<string, unknown> {
  const raw = text(entry.params);
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { params: parsed };
  } catch {
    // Cut at MAX_ACTION_PARAMS_CHARS: shown as the text it is.
    return { params: raw };
  }
}

/**
 * The viewer's After tab for a call with a picture: a page that is the picture. The trace has no
 * DOM of the page (the timeline keeps none), and without a snapshot the tab would stay blank.
 */
export function pictureSnapshot(
  callId: string,
  pageId: string,
  picture: Buffer,
  size: { width: number; height: number },
  time: number,
  url: string | undefined,
): unknown {
  const src = `data:image/jpeg;base64,${picture.toString('base64')}`;
  return {
    type: 'frame-snapshot',
    snapshot: {
      callId,
      snapshotName: `after@${callId}`,
      pageId,
      frameId: `frame@${pageId}`,
      frameUrl: url ?? 'about:blank',
      doctype: 'html',
      html: [
        'HTML',
        {},
        ['HEAD', {}, ['STYLE', {}, 'body{margin:0}img{display:block;width:100%}']],
        ['BODY', {}, ['IMG', { src, alt: 'The page after this call' }]],
      ],
      resourceOverrides: [],
      viewport: size,
      timestamp: time,
      collectionTime: 0,
      isMainFrame: true,
    },
  };
}

/** The viewer's page of an entry: the log's page_id, or the session's one page. */
export const pageOf = (entry: LogEvent): string => `page@${text(entry.page_id) ?? 'main'}`;

/** A request of the log as a HAR entry of the Network tab: answered, failed, or still loading. */
export function harEntry(request: LogEvent, time: number, response?: LogEvent, failed?: LogEvent): unknown {
  const url = text(request.url) ?? '';
  const status = typeof response?.status === 'number' ? response.status : failed === undefined ? 0 : -1;
  return {
    type: 'resource-snapshot',
    snapshot: {
      pageref: pageOf(request),
      _monotonicTime: time,
      startedDateTime: request.timestamp,
      time: response === undefined ? -1 : Date.parse(response.timestamp) - Date.parse(request.timestamp),
      request: {
        method: text(request.method) ?? 'GET',
        url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        queryString: [],
        headersSize: -1,
        bodySize: -1,
      },
      response: {
        status,
        statusText: text(failed?.failure) ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        content: { size: -1, mimeType: 'x-unknown' },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: -1, wait: -1, receive: -1 },
      _resourceType: text(request.resourceType),
      ...(failed === undefined ? {} : { _failureText: text(failed.failure) ?? 'failed' }),
    },
  };
}
