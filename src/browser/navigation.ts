import type { Frame, Page, Response } from 'playwright-core';
import { NavigationBlockedError } from './browserErrors.js';
import { BLOCKED_HEADER } from './egressProxy.js';
import type { UrlPolicy } from './urlPolicy.js';
import type { DownloadInfo } from './downloadStore.js';

/** How long a failed navigation waits for Chromium to commit its error page. */
const ERROR_PAGE_COMMIT_TIMEOUT_MS = 2000;

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle' | 'commit';

export interface BlockedEntry {
  url: string;
  reason: string;
  resourceType: string;
  mainFrame: boolean;
}

/** What a navigation needs of a session (Session implements it). */
export interface NavigationTarget {
  readonly page: Page;
  /** Records a line of the service's own in the session's console log. */
  note(type: string, text: string): void;
  /** What the allow-list refused since the last call of this; empties the list. */
  takeBlocked(): BlockedEntry[];
  title(): Promise<string>;
  /** Waits until the page's network has been quiet for the settle window. */
  settle(timeoutMs: number): Promise<void>;
  /** The session's downloads: a navigation answered with an attachment reports the download. */
  readonly downloads?: {
    mark(): number;
    firstSince(mark: number, timeoutMs: number): Promise<DownloadInfo | undefined>;
    statusOf(url: string): number | undefined;
  };
}

export interface NavigationOutcome {
  url: string;
  title: string;
  status: number | null;
  blocked: { url: string; reason: string; resourceType: string }[];
  /** Set when the URL answered with an attachment: the page stayed where it was and this was saved. */
  download?: DownloadInfo;
}

export interface HistoryOutcome extends NavigationOutcome {
  /** False when the history had no entry in that direction. */
  navigated: boolean;
}

type Go = (waitUntil: Exclude<WaitUntil, 'networkidle'>, timeout: number) => Promise<Response | null>;

/** Navigates to a URL the policy allows; NAVIGATION_BLOCKED for one it does not. */
export async function gotoChecked(
  target: NavigationTarget,
  policy: UrlPolicy,
  url: string,
  waitUntil: WaitUntil,
  timeout: number,
): Promise<NavigationOutcome> {
  const verdict = policy.checkNavigation(url);
  if (!verdict.allowed) throw new NavigationBlockedError(url, verdict.reason);
  const started = Date.now();
  const mark = target.downloads?.mark();
  try {
    return await navigateChecked(target, policy, verdict.url, () =>
      withSettle(
        target,
        (w, t) => target.page.goto(verdict.url, { waitUntil: w, timeout: t }),
        waitUntil,
        timeout,
      ),
    );
  } catch (error) {
    if (mark === undefined || !(error instanceof Error) || !DOWNLOAD_STARTING.test(error.message))
      throw error;
    const download = await target.downloads?.firstSince(mark, Math.max(1, timeout - (Date.now() - started)));
    // A download the session did not keep (none reported in time) leaves Playwright's error as it is.
    if (download === undefined) throw error;
    return attachmentOutcome(target, download);
  }
}

/** How Playwright fails a navigation whose response is an attachment (the page stays where it was). */
const DOWNLOAD_STARTING = /Download is starting/;

/** A navigation answered with an attachment: where the page is, and the download it became. */
async function attachmentOutcome(
  target: NavigationTarget,
  download: DownloadInfo,
): Promise<NavigationOutcome> {
  const blocked = target.takeBlocked();
  return {
    url: target.page.url(),
    title: await target.title(),
    status: target.downloads?.statusOf(download.url) ?? null,
    blocked: blocked.map((b) => ({ url: b.url, reason: b.reason, resourceType: b.resourceType })),
    download,
  };
}

/** Reloads the page under the same checks as a navigation. */
export function reloadChecked(
  target: NavigationTarget,
  policy: UrlPolicy,
  waitUntil: WaitUntil,
  timeout: number,
): Promise<NavigationOutcome> {
  return navigateChecked(target, policy, target.page.url(), () =>
    withSettle(target, (w, t) => target.page.reload({ waitUntil: w, timeout: t }), waitUntil, timeout),
  );
}

/**
 * Goes one entry back or forward in the page's history under the same checks as a navigation: an
 * entry outside the allow-list (a page the proxy refused earlier) is NAVIGATION_BLOCKED like a goto.
 */
export async function historyChecked(
  target: NavigationTarget,
  policy: UrlPolicy,
  direction: 'back' | 'forward',
  waitUntil: WaitUntil,
  timeout: number,
): Promise<HistoryOutcome> {
  const page = target.page;
  // Playwright answers null both at the end of the history and for a same-document entry (a hash,
  // pushState); only a main-frame navigation during the call tells them apart.
  let navigated = false;
  const onNavigated = (frame: Frame): void => {
    if (frame === page.mainFrame()) navigated = true;
  };
  page.on('framenavigated', onNavigated);
  try {
    const outcome = await navigateChecked(target, policy, undefined, () =>
      withSettle(
        target,
        (w, t) =>
          direction === 'back'
            ? page.goBack({ waitUntil: w, timeout: t })
            : page.goForward({ waitUntil: w, timeout: t }),
        waitUntil,
        timeout,
      ),
    );
    return { ...outcome, navigated };
  } finally {
    page.off('framenavigated', onNavigated);
  }
}

/**
 * The URL of a main-document hop the allow-list refused during a navigation: one the proxy
 * blocked (a redirect hop, a meta refresh; for https a refused tunnel fails the navigation itself),
 * or, for a tab of another browser that has no proxy, any hop of the redirect chain or the final URL.
 */
function refusedHop(
  target: NavigationTarget,
  response: Response | null,
  policy: UrlPolicy,
): { url: string; reason: string } | undefined {
  // Judged from this navigation's own response and redirect chain, never from blocked entries the
  // page may still report about an earlier document.
  if (response?.headers()[BLOCKED_HEADER] === '1')
    return { url: response.url(), reason: 'outside the allow-list (ALLOW_HOST_REGEX)' };
  const hops: string[] = [target.page.url()];
  for (let r = response?.request() ?? null; r !== null; r = r.redirectedFrom()) hops.push(r.url());
  for (const url of hops) {
    const verdict = policy.checkRequest(url);
    if (!verdict.allowed) return { url: verdict.url, reason: verdict.reason };
  }
  return undefined;
}

/**
 * Runs a navigation. If the allow-list refused the main document the page is left on about:blank
 * and the caller gets NAVIGATION_BLOCKED; refused subresources and frames are listed in the result.
 */
async function navigateChecked(
  target: NavigationTarget,
  policy: UrlPolicy,
  /** The URL asked for; undefined for a history entry, whose URL is known only once it loads. */
  requested: string | undefined,
  go: () => Promise<Response | null>,
): Promise<NavigationOutcome> {
  target.takeBlocked();
  let response: Response | null;
  try {
    response = await go();
  } catch (error) {
    // A network failure (net::ERR_…, a refused https tunnel among them) makes Chromium commit its
    // error page just after the call fails; the next navigation would race that commit and be
    // "interrupted". Wait for it, briefly.
    if (error instanceof Error && /net::ERR_/.test(error.message)) {
      await target.page
        .waitForURL(/^chrome-error:/, { waitUntil: 'commit', timeout: ERROR_PAGE_COMMIT_TIMEOUT_MS })
        .catch(() => target.note('info', 'no error page after a failed navigation'));
    }
    const main = target.takeBlocked().find((b) => b.mainFrame);
    if (main !== undefined) throw new NavigationBlockedError(requested ?? main.url, main.reason, main.url);
    throw error;
  }
  const blocked = target.takeBlocked();
  const hop = refusedHop(target, response, policy);
  if (hop !== undefined) {
    await target.page
      .goto('about:blank')
      .catch((error: unknown) =>
        target.note('warning', `could not leave the blocked page: ${String(error)}`),
      );
    throw new NavigationBlockedError(requested ?? hop.url, hop.reason, hop.url);
  }
  return {
    url: target.page.url(),
    title: await target.title(),
    status: response?.status() ?? null,
    blocked: blocked.map((b) => ({ url: b.url, reason: b.reason, resourceType: b.resourceType })),
  };
}

/**
 * Runs a navigation; for networkidle it waits for load, then for the session's own settle (which,
 * unlike Playwright's networkidle, cannot hang on a response whose body is never read).
 */
async function withSettle(
  target: NavigationTarget,
  go: Go,
  waitUntil: WaitUntil,
  timeout: number,
): Promise<Response | null> {
  if (waitUntil !== 'networkidle') return go(waitUntil, timeout);
  const started = Date.now();
  const response = await go('load', timeout);
  await target.settle(Math.max(1, timeout - (Date.now() - started)));
  return response;
}
