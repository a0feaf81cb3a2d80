import type { Frame, Page, Response } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';
import { NavigationBlockedError } from '../engine/browserErrors.js';
import { capUrl } from '../engine/pageGuards.js';
import { BLOCKED_HEADER } from '../network/egressProxy.js';
import type { UrlPolicy } from '../network/urlPolicy.js';
import type { DownloadInfo } from '../artifacts/downloadStore.js';

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
  /** The page's requests still in flight, at most `max`. */
  pendingRequests(max: number): string[];
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
  /** Set when the answer came without the load event: the requests that held it, and what to do. */
  loadPending?: { requests: string[]; note: string };
  /** The requests the allow-list refused during the call; absent when there were none. */
  blocked?: { url: string; reason: string; resourceType: string }[];
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
    ...blockedPart(blocked),
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
    return {
      url: response.url(),
      reason:
        policy.resolvedRefusals.reasonFor(response.url()) ?? 'outside the allow-list (ALLOW_HOST_REGEX)',
    };
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
  go: () => Promise<{ response: Response | null; loadPending?: NavigationOutcome['loadPending'] }>,
): Promise<NavigationOutcome> {
  target.takeBlocked();
  let response: Response | null;
  let loadPending: NavigationOutcome['loadPending'];
  try {
    ({ response, loadPending } = await go());
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      const pending = target.pendingRequests(MAX_PENDING_NAMED);
      throw new ServiceError(
        'TIMEOUT',
        `The navigation${requested === undefined ? '' : ` to ${capUrl(requested)}`} did not reach a usable document (DOMContentLoaded) within its timeout${pending.length > 0 ? `; still pending: ${pending.join(', ')}` : ''}. The server is slow or does not answer: raise timeout, or check the URL.`,
        { pending },
        error,
      );
    }
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
    ...blockedPart(blocked),
    ...(loadPending === undefined ? {} : { loadPending }),
  };
}

/** A navigation's blocked requests, as its answer lists them: nothing when the allow-list refused none. */
function blockedPart(blocked: BlockedEntry[]): Pick<NavigationOutcome, 'blocked'> {
  if (blocked.length === 0) return {};
  return { blocked: blocked.map((b) => ({ url: b.url, reason: b.reason, resourceType: b.resourceType })) };
}

/** A navigation's answer names at most this many requests still pending. */
const MAX_PENDING_NAMED = 10;

/** Why a load wait ended: the event fired, or only requests that no longer count were left. */
type LoadWait = 'loaded' | 'held' | 'timeout';

/**
 * Waits for the load event once the document is usable (DOMContentLoaded): it answers when load
 * fires, or as soon as only requests that no longer hold the settle (no response after
 * SETTLE_MAX_PENDING_MS, a body that never ends) keep it from firing, or at the deadline. A page
 * whose one image hangs answers in seconds, readable, with that image named, not after the timeout.
 */
async function waitForLoad(target: NavigationTarget, deadline: number): Promise<LoadWait> {
  const left = () => Math.max(1, deadline - Date.now());
  let settled = false;
  const loaded = target.page.waitForLoadState('load', { timeout: left() }).then(
    (): LoadWait => 'loaded',
    (): LoadWait => 'timeout',
  );
  const held = (async (): Promise<LoadWait> => {
    while (!settled && Date.now() < deadline) {
      try {
        await target.settle(left());
      } catch {
        // The network stayed busy until the deadline: load has its own verdict then.
        return 'timeout';
      }
      // Quiet with requests in flight: only stuck ones are left, and they hold load.
      if (target.pendingRequests(1).length > 0) return 'held';
      // Quiet with nothing in flight: load is about to fire (or a script delays it); look again.
      await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, LOAD_RECHECK_MS))]);
    }
    return 'timeout';
  })();
  try {
    return await Promise.race([loaded, held]);
  } finally {
    settled = true;
  }
}

/** How long a navigation whose network went quiet waits for load before it looks again. */
const LOAD_RECHECK_MS = 100;

/**
 * Runs a navigation: to DOMContentLoaded, then for load (and networkidle) waits as waitForLoad does,
 * then for networkidle the session's own settle (which, unlike Playwright's networkidle, cannot hang
 * on a response whose body is never read). An answer without load says which requests held it.
 */
async function withSettle(
  target: NavigationTarget,
  go: Go,
  waitUntil: WaitUntil,
  timeout: number,
): Promise<{ response: Response | null; loadPending?: NavigationOutcome['loadPending'] }> {
  if (waitUntil === 'commit' || waitUntil === 'domcontentloaded')
    return { response: await go(waitUntil, timeout) };
  const deadline = Date.now() + timeout;
  const response = await go('domcontentloaded', timeout);
  const load = await waitForLoad(target, deadline);
  if (load !== 'loaded') {
    const requests = target.pendingRequests(MAX_PENDING_NAMED);
    const why = load === 'held' ? 'requests that got no answer' : `the ${timeout} ms timeout passed`;
    return {
      response,
      loadPending: {
        requests,
        note: `The document is usable (DOMContentLoaded), but the load event did not fire: ${why} kept it waiting (${requests.length} named). Read or act on the page now; waitUntil 'domcontentloaded' answers without waiting for them.`,
      },
    };
  }
  if (waitUntil === 'networkidle') await target.settle(Math.max(1, deadline - Date.now()));
  return { response };
}
