import type { Locator, Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { NetworkTracker } from '../network/networkTracker.js';
import { boxesOf, withBoxes, type Box } from '../page/elementBoxes.js';
import { refLocator, SnapshotHistory, type SnapshotEntry } from '../page/pageSnapshot.js';
import type { StoredRead } from '../page/pageRead.js';

/** The session's first page. Its refs keep the plain form (e12, f1e3); other pages' carry their id. */
export const MAIN_PAGE_ID = 'p1';

/** A ref as Playwright writes it inside a snapshot line: `[ref=e12]` or `[ref=f1e3]`. */
const SNAPSHOT_REF = /\[ref=((?:f\d+)?e\d+)\]/g;
/** A ref an action names: the page id of a page other than p1, then Playwright's own ref. */
const NAMED_REF = /^(p\d+)?((?:f\d+)?e\d+)$/;
/**
 * The most the check of which document a page shows may take (one evaluate, only after the main
 * frame navigated): a page that does not answer by then is taken to show a new document.
 */
export const DOCUMENT_CHECK_TIMEOUT_MS = 2_000;
/** The document of a snapshot taken while the page navigated: no page shows it, its refs are stale. */
export const UNKNOWN_DOCUMENT = -1;

/**
 * One page of a session (its main page, or a popup it opened): the Playwright page and what belongs
 * to it alone. Snapshots, refs and the document counter are per page, so a ref read on one page can
 * never act on another; the settle tracker follows this page's requests only.
 */
export class SessionPage {
  tracker: NetworkTracker;
  /** The last few snapshots of this page: refs belong to the newest, `since` diffs compare with older ones. */
  readonly snapshots = new SnapshotHistory();
  /** The last page.text of this page, which a cursor continues. */
  lastRead: StoredRead | undefined;
  /**
   * Numbers the main frame's documents: a snapshot's refs hold only in the document it was taken in.
   * A same-document navigation (#fragment, pushState, replaceState) keeps the number; it is checked
   * against the page (documentId) only after the main frame navigated.
   */
  document = 0;
  /** Main-frame navigations seen: new documents and same-document ones alike. */
  private navigations = 0;
  /** `navigations` when `document` was last checked against the page. */
  private checkedAt = 0;
  /** performance.timeOrigin of the checked document: a new document has its own, a pushState keeps it. */
  private origin: number | undefined;
  lastTitle = '';
  /** The renderer died: the next call that acts on this page replaces it with a fresh one. */
  crashed = false;

  constructor(
    /** p1, p2, …: never reused within the session. */
    readonly id: string,
    public page: Page,
    /** The page that opened this one, when known. */
    public opener: string | undefined,
  ) {
    this.tracker = new NetworkTracker(page);
  }

  /** Keeps this page's counters as its Playwright page reports (the page it is now, not a replaced one). */
  track(page: Page, onCrash: () => void): void {
    page.on('crash', () => {
      if (page !== this.page) return;
      this.crashed = true;
      onCrash();
    });
    page.on('framenavigated', (frame) => {
      if (page === this.page && frame === page.mainFrame()) this.navigations++;
    });
    page.on('load', () => {
      if (page === this.page)
        page.title().then(
          (t) => (this.lastTitle = t),
          // The page navigated on or closed: the next load records the title.
          () => undefined,
        );
    });
  }

  /** Swaps in a fresh Playwright page (after a crash or an evaluate deadline): refs of the old one go stale. */
  replace(page: Page): void {
    this.page = page;
    this.tracker = new NetworkTracker(page);
    this.document++;
    this.origin = undefined;
    this.checkedAt = this.navigations;
    this.crashed = false;
  }

  /** The document's number when no main-frame navigation happened since it was checked; else undefined. */
  get knownDocument(): number | undefined {
    return this.checkedAt === this.navigations ? this.document : undefined;
  }

  /**
   * Which document the page shows: the same number across same-document navigations, a new one once
   * a new document loaded. Free while no main-frame navigation happened since the last check; after
   * one, one evaluate of performance.timeOrigin (per document, kept by pushState and #fragments).
   */
  async documentId(): Promise<number> {
    if (this.checkedAt === this.navigations) return this.document;
    const at = this.navigations;
    const page = this.page;
    const origin = await withDeadline(
      page.evaluate(() => performance.timeOrigin),
      DOCUMENT_CHECK_TIMEOUT_MS,
      () => new Error('document check timeout'),
    ).catch(
      // A page navigating on (its context destroyed), closed or frozen: taken for a new document,
      // which only makes older refs stale.
      () => undefined,
    );
    if (page !== this.page) return this.document;
    const moved = this.navigations !== at;
    if (origin === undefined || origin !== this.origin || moved) this.document++;
    // A navigation during the check leaves the next call to check again.
    this.origin = moved ? undefined : origin;
    this.checkedAt = at;
    return this.document;
  }

  /** What this page's refs start with: nothing for p1 (refs stay e12), its id for the others (p2e12). */
  get refPrefix(): string {
    return this.id === MAIN_PAGE_ID ? '' : this.id;
  }

  /** A snapshot text of this page with its refs named as actions accept them. */
  nameRefs(text: string): string {
    const prefix = this.refPrefix;
    return prefix === '' ? text : text.replace(SNAPSHOT_REF, (_m, ref: string) => `[ref=${prefix}${ref}]`);
  }

  /** Refs Playwright wrote on this page (required fields), named as the snapshot names them. */
  nameRefSet(refs: ReadonlySet<string>): Set<string> {
    return new Set([...refs].map((ref) => `${this.refPrefix}${ref}`));
  }

  /**
   * The element a ref of this page's last snapshot names. A ref of another page (its prefix says
   * which) is STALE_REF before anything is looked up: it never acts here.
   */
  /** Playwright's own ref for a ref as this page's snapshots name it; undefined for another page's. */
  ariaRef(ref: string): string | undefined {
    const m = NAMED_REF.exec(ref);
    return m?.[2] !== undefined && (m[1] ?? MAIN_PAGE_ID) === this.id ? m[2] : undefined;
  }

  /** A snapshot answer of this page with the box of each element it names (elementBoxes.ts). */
  withBoxes(text: string, timeout: number): Promise<string> {
    return withBoxes(this.page, text, (ref) => this.ariaRef(ref), timeout);
  }

  /** The boxes of elements of this page, by the refs its snapshots name them with. */
  async boxes(refs: readonly string[], timeout: number): Promise<Map<string, Box>> {
    const named = new Map<string, string>();
    for (const ref of refs) {
      const own = this.ariaRef(ref);
      if (own !== undefined) named.set(own, ref);
    }
    const found = await boxesOf(this.page, [...named.keys()], timeout);
    return new Map(
      [...named].flatMap(([own, ref]) => {
        const box = found.get(own);
        return box === undefined ? [] : [[ref, box] as const];
      }),
    );
  }

  /**
   * The newest snapshot of the whole page when it has `revision` and the page still shows its
   * document (its refs are the ones actions accept); undefined otherwise.
   */
  async keptSnapshot(revision: number): Promise<SnapshotEntry | undefined> {
    const latest = this.snapshots.latest();
    if (latest?.revision !== revision || latest.scope !== 'page') return undefined;
    return latest.document === (await this.documentId()) ? latest : undefined;
  }

  async refTarget(ref: string): Promise<Locator> {
    const m = NAMED_REF.exec(ref);
    const owner = m?.[1] ?? MAIN_PAGE_ID;
    if (m?.[2] === undefined || owner !== this.id) {
      throw new ServiceError(
        'STALE_REF',
        `The ref ${ref} is from a snapshot of page ${owner}, not of the active page ${this.id}: call pages.select {page_id: "${owner}"} first, or take a snapshot of this page.`,
        { ref, page_id: this.id, ref_page_id: owner },
      );
    }
    return refLocator(this.page, this.snapshots.latest(), await this.documentId(), ref, m[2]);
  }
}
