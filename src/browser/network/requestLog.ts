// Stable ids for a session's requests (r1, r2 …) and the references network.get and network.har
// read later. The listeners only record cheap facts (an id, the Request, when it started, whether it
// finished): headers, timing, sizes and bodies are asked of the browser when a caller wants them.
import type { Request } from 'playwright-core';
import { ServiceError } from '../../errors/serviceError.js';

/** What is known of a request seen without a Playwright Request (a popup the allow-list refused). */
export interface RequestFacts {
  url: string;
  method: string;
  resourceType: string;
  failure: string;
}

export interface RequestRecord {
  id: string;
  /** Null for a request known only by its facts. */
  request: Request | null;
  facts: RequestFacts | null;
  /** The session page that made it (p1, p2 …), when known. */
  pageId: string | undefined;
  /** When the service saw it (ms since the epoch). */
  seenAt: number;
  /** Its requestfinished event came: its sizes are known and its body is complete. */
  finished: boolean;
}

const ID = /^r([1-9][0-9]{0,15})$/;

export class RequestLog {
  private nextId = 1;
  private readonly byRequest = new WeakMap<Request, RequestRecord>();
  /** Insertion order is age: the first key is the oldest kept. */
  private readonly records = new Map<string, RequestRecord>();

  /** capacity: MAX_NETWORK_DETAILS, the requests whose details (headers, bodies …) are kept, the most recent. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
  }

  /** The record of a request, made at its first sighting (its request event, or later for a popup's first). */
  seen(request: Request, pageId?: string): RequestRecord {
    const known = this.byRequest.get(request);
    if (known !== undefined) return known;
    const record = this.keep({ request, facts: null, pageId });
    this.byRequest.set(request, record);
    return record;
  }

  /** The id of a request, given one at its first sighting. */
  idOf(request: Request): string {
    return this.seen(request).id;
  }

  finished(request: Request): void {
    const record = this.byRequest.get(request);
    if (record !== undefined) record.finished = true;
  }

  /** An id for a request the service knows only by what it was told (no Playwright Request). */
  unseen(facts: RequestFacts): string {
    return this.keep({ request: null, facts, pageId: undefined }).id;
  }

  /** Ids given so far, kept or not. */
  get issued(): number {
    return this.nextId - 1;
  }

  /** The kept records, oldest first. */
  list(): RequestRecord[] {
    return [...this.records.values()];
  }

  /** The record of an id; an id never given or no longer kept is the caller's to fix. */
  get(id: string): RequestRecord {
    const record = this.records.get(id);
    if (record !== undefined) return record;
    const n = Number(ID.exec(id)?.[1] ?? 0);
    const evicted = n >= 1 && n <= this.issued;
    const message = evicted
      ? `Invalid params: request ${id} is no longer kept: a session keeps the details of its most recent ${this.capacity} requests (MAX_NETWORK_DETAILS). Read a request soon after it ran, or call network.pull for its id.`
      : `Invalid params: no request ${id} in this session: ids come from network.pull and the failedRequests of an action's answer.`;
    throw new ServiceError('INVALID_PARAMS', message, {
      errors: [
        {
          path: '/request_id',
          message: evicted ? 'is no longer kept' : 'is not a request of this session',
          keyword: 'request',
          params: { kept: this.capacity },
        },
      ],
    });
  }

  private keep(fields: Pick<RequestRecord, 'request' | 'facts' | 'pageId'>): RequestRecord {
    const record: RequestRecord = { id: `r${this.nextId++}`, ...fields, seenAt: Date.now(), finished: false };
    this.records.set(record.id, record);
    if (this.records.size > this.capacity) {
      const oldest = this.records.keys().next();
      if (oldest.done !== true) this.records.delete(oldest.value);
    }
    return record;
  }
}
