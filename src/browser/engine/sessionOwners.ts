/**
 * Who asks for a session: the engine's Principal, structurally (browser/ does not import rpc/). A
 * session belongs to the id that created it; an admin sees and acts on every session.
 */
export interface SessionCaller {
  readonly id: string;
  readonly admin: boolean;
}

/** Whether `caller` may reach what `owner` holds: its own, or anything for an admin. */
export function reaches(caller: SessionCaller, owner: string | undefined): boolean {
  return caller.admin || (owner !== undefined && owner === caller.id);
}

/**
 * The owner of every live session and the creates each owner has in progress: what per-owner
 * scoping and the per-owner quota (MAX_SESSIONS_PER_KEY) read.
 */
export class SessionOwners {
  /** Session id → the id of the caller that created it. */
  private readonly owners = new Map<string, string>();
  /** Owner id → its creates in progress (each holds a reserved slot). */
  private readonly creating = new Map<string, number>();

  ownerOf(sessionId: string): string | undefined {
    return this.owners.get(sessionId);
  }

  add(sessionId: string, owner: string): void {
    this.owners.set(sessionId, owner);
  }

  /** Forgets a session; returns who owned it. */
  remove(sessionId: string): string | undefined {
    const owner = this.owners.get(sessionId);
    this.owners.delete(sessionId);
    return owner;
  }

  /** Live sessions of `owner` and its creates in progress. */
  held(owner: string): number {
    let n = this.creating.get(owner) ?? 0;
    for (const o of this.owners.values()) if (o === owner) n++;
    return n;
  }

  /** A create of `owner` starts (+1) or ends (-1). */
  creatingChanged(owner: string, delta: 1 | -1): void {
    const n = (this.creating.get(owner) ?? 0) + delta;
    if (n <= 0) this.creating.delete(owner);
    else this.creating.set(owner, n);
  }
}
