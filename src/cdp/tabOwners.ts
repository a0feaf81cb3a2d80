import { reaches, type SessionCaller } from '../browser/engine/sessionOwners.js';

/** What a claim of a tab came to: taken now, already the caller's to reach, or another id's. */
export type TabClaim = 'claimed' | 'held' | 'refused';

/**
 * The owner of each tab of the CDP_URL browser the service opened (tabs.open) or attached
 * (tabs.attach): the id of the caller that did, as sessions record theirs (SessionOwners). A tab
 * nobody owns (the user's own, never attached) is every caller's to see; an owned one only its
 * owner's and an admin's. Target ids outlive a dropped connection, so ownership does too, and it
 * ends only when the tab is gone: `retain` forgets every tab the browser no longer lists, which
 * keeps the map no larger than the tabs that exist.
 */
export class TabOwners {
  /** Tab id (CDP target id) → the id of the caller that opened or attached it, and when (`seq`). */
  private readonly owners = new Map<string, { owner: string; seq: number }>();
  private seq = 0;

  /** Whether `caller` may see and act on the tab: nobody's, its own, or any for an admin. */
  reachable(tabId: string, caller: SessionCaller): boolean {
    const entry = this.owners.get(tabId);
    return entry === undefined || reaches(caller, entry.owner);
  }

  /** The tab was opened by `owner`: it is its own from the start. */
  assign(tabId: string, owner: string): void {
    this.owners.set(tabId, { owner, seq: ++this.seq });
  }

  /** Takes a tab nobody owns for `caller`; a tab already reachable stays with its owner. */
  claim(tabId: string, caller: SessionCaller): TabClaim {
    const entry = this.owners.get(tabId);
    if (entry === undefined) {
      this.assign(tabId, caller.id);
      return 'claimed';
    }
    return reaches(caller, entry.owner) ? 'held' : 'refused';
  }

  /** The tab closed, or a claim that made nothing is given back. */
  forget(tabId: string): void {
    this.owners.delete(tabId);
  }

  /** A point to pass to `retain`: taken just before the browser is asked for its tabs. */
  mark(): number {
    return this.seq;
  }

  /**
   * Forgets every tab not in `live`, the tabs the browser listed when asked at `mark`. A tab opened
   * or claimed after that may be missing from the list only because it is newer: it stays.
   */
  retain(live: ReadonlySet<string>, mark: number): void {
    for (const [tabId, entry] of this.owners)
      if (entry.seq <= mark && !live.has(tabId)) this.owners.delete(tabId);
  }

  get size(): number {
    return this.owners.size;
  }
}
