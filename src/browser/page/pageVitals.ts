// The web vitals of the page's document as the browser measured them (Performance Timeline), read in
// one evaluation: navigation and paint timings, LCP, CLS, the longest interaction (a lab INP), and
// the requests that blocked rendering or weighed most. performance.stop answers them with the trace.

/** A URL in the summary is cut to this many characters. */
export const MAX_VITALS_URL_CHARS = 300;

export interface PageVitals {
  url: string;
  ttfbMs: number | null;
  fcpMs: number | null;
  lcpMs: number | null;
  lcpElement: string | null;
  cls: number;
  inpMs: number | null;
  interactions: number;
  domContentLoadedMs: number | null;
  loadMs: number | null;
  renderBlocking: { url: string; durationMs: number }[];
  largestRequests: { url: string; bytes: number; durationMs: number; type: string }[];
}

/**
 * Runs in the page: every list is cut to `rows`, every URL to `urlChars`. Buffered observers give
 * the entries the browser kept since the document started (takeRecords hands them over at once).
 */
export function readVitals({ rows, urlChars }: { rows: number; urlChars: number }): PageVitals {
  /** The buffered entries of `type`, as the type of entry they are. */
  const take = <T extends PerformanceEntry>(type: string, extra: Record<string, unknown> = {}): T[] => {
    try {
      const observer = new PerformanceObserver(() => undefined);
      observer.observe({ type, buffered: true, ...extra });
      const records = observer.takeRecords() as T[];
      observer.disconnect();
      return records;
    } catch {
      // An entry type this browser does not have: none of it.
      return [];
    }
  };
  const ms = (n: number | undefined): number | null =>
    n === undefined || !Number.isFinite(n) || n <= 0 ? null : Math.round(n);
  const cut = (url: string): string => (url.length > urlChars ? `${url.slice(0, urlChars)}…` : url);
  const describe = (el: Element | null | undefined): string | null => {
    if (el === null || el === undefined) return null;
    const id = el.id === '' ? '' : `#${el.id}`;
    const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
    return `${el.tagName.toLowerCase()}${id}${text === '' ? '' : ` "${text}"`}`;
  };

  const lcp = take<PerformanceEntry & { renderTime?: number; loadTime?: number; element?: Element | null }>(
    'largest-contentful-paint',
  ).at(-1);
  // CLS: the largest session window of shifts without recent input (gaps under 1 s, at most 5 s long).
  let cls = 0;
  let windowValue = 0;
  let windowStart = 0;
  let last = -Infinity;
  for (const entry of take<PerformanceEntry & { value: number; hadRecentInput: boolean }>('layout-shift')) {
    if (entry.hadRecentInput) continue;
    if (entry.startTime - last > 1000 || entry.startTime - windowStart > 5000) {
      windowValue = 0;
      windowStart = entry.startTime;
    }
    windowValue += entry.value;
    last = entry.startTime;
    cls = Math.max(cls, windowValue);
  }
  // A lab INP: the longest interaction (its longest event) of the document so far.
  const byInteraction = new Map<number, number>();
  for (const entry of take<PerformanceEntry & { interactionId?: number }>('event', {
    durationThreshold: 16,
  })) {
    const id = entry.interactionId ?? 0;
    if (id > 0) byInteraction.set(id, Math.max(byInteraction.get(id) ?? 0, entry.duration));
  }
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
  const resources = performance.getEntriesByType('resource') as (PerformanceResourceTiming & {
    renderBlockingStatus?: string;
  })[];
  return {
    url: cut(location.href),
    ttfbMs: ms(nav?.responseStart),
    fcpMs: ms(fcp?.startTime),
    lcpMs: ms(lcp === undefined ? undefined : lcp.renderTime || lcp.loadTime || lcp.startTime),
    lcpElement: describe(lcp?.element),
    cls: Math.round(cls * 1000) / 1000,
    inpMs: byInteraction.size === 0 ? null : Math.round(Math.max(...byInteraction.values())),
    interactions: byInteraction.size,
    domContentLoadedMs: ms(nav?.domContentLoadedEventEnd),
    loadMs: ms(nav?.loadEventEnd),
    renderBlocking: resources
      .filter((r) => r.renderBlockingStatus === 'blocking')
      .sort((a, b) => b.duration - a.duration)
      .slice(0, rows)
      .map((r) => ({ url: cut(r.name), durationMs: Math.round(r.duration) })),
    largestRequests: resources
      .map((r) => ({ r, bytes: r.transferSize || r.encodedBodySize || 0 }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, rows)
      .map(({ r, bytes }) => ({
        url: cut(r.name),
        bytes,
        durationMs: Math.round(r.duration),
        type: r.initiatorType,
      })),
  };
}
