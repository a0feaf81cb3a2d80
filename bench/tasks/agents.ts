// What an agent holds while it does a task: one tool per call, every answer read (counted as
// characters: the JSON result for the service, the MCP text content for the peer), and the few
// helpers an agent's reading amounts to (find the ref of `role "name"` in what it was shown).
import { performance } from 'node:perf_hooks';
import type { PeerSession } from '../systems/peer.js';
import type { ServiceSession } from '../systems/service.js';

export interface Meter {
  calls: number;
  chars: number;
  /** Images among the answers (a screenshot's base64, an MCP image part): an agent pays for them apart. */
  images: number;
  /** The service methods called, page.act's steps among them (the MCP tool groups a task needs). */
  methods: Set<string>;
  /** Every call and its answer, when tracing (TASKS_TRACE=1). */
  trace: string[] | undefined;
}

export const newMeter = (trace: boolean): Meter => ({
  calls: 0,
  chars: 0,
  images: 0,
  methods: new Set(),
  trace: trace ? [] : undefined,
});

function record(meter: Meter, call: string, answer: string, since: number, images = 0): void {
  meter.calls++;
  meter.chars += answer.length;
  meter.images += images;
  meter.trace?.push(
    `>>> ${call}\n<<< (${answer.length} chars, ${(performance.now() - since).toFixed(0)} ms) ${answer}`,
  );
}

/** A step of page.act: a method with its params, or an expect. */
export type Step = { method: string; params?: Record<string, unknown> } | { expect: Record<string, unknown> };

/** This service over HTTP /rpc, as an agent calls it. */
export class ServiceAgent {
  constructor(
    private readonly session: ServiceSession,
    readonly meter: Meter,
  ) {}

  /** One method call; the answer read is the JSON of its result (or of its error). */
  async call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const t0 = performance.now();
    this.meter.methods.add(method);
    if (method === 'page.act' && Array.isArray(params.steps))
      for (const step of params.steps as unknown[])
        if (typeof step === 'object' && step !== null && 'method' in step && typeof step.method === 'string')
          this.meter.methods.add(step.method);
    try {
      const { result } = await this.session.call(method, params);
      // The screenshot method answers its image as base64 in `base64`.
      const images = typeof result.base64 === 'string' ? 1 : 0;
      record(this.meter, `${method} ${JSON.stringify(params)}`, JSON.stringify(result), t0, images);
      return result;
    } catch (error) {
      record(this.meter, `${method} ${JSON.stringify(params)}`, String(error), t0);
      throw error;
    }
  }

  /** page.act: the steps in one call; fails unless every step succeeded. Returns each step's result. */
  async act(steps: Step[]): Promise<Record<string, unknown>[]> {
    const answer = await this.call('page.act', { steps });
    const entries = Array.isArray(answer.steps) ? (answer.steps as unknown[]) : [];
    if (answer.ok !== true)
      throw new Error(
        `page.act stopped at step ${String(answer.failedAt)}: ${JSON.stringify(entries.at(-1))}`,
      );
    return entries.map((e) => {
      const result: unknown = typeof e === 'object' && e !== null && 'result' in e ? e.result : {};
      return typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
    });
  }
}

/** @playwright/mcp over MCP, as an agent calls its tools. */
export class PeerAgent {
  constructor(
    private readonly session: PeerSession,
    readonly meter: Meter,
  ) {}

  /** One tool call; the answer read is every text part of its content. */
  async tool(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const t0 = performance.now();
    try {
      const reply = await this.session.tool(name, args);
      record(this.meter, `${name} ${JSON.stringify(args)}`, reply.text, t0, reply.images);
      return reply.text;
    } catch (error) {
      record(this.meter, `${name} ${JSON.stringify(args)}`, String(error), t0);
      throw error;
    }
  }
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The ref of the first `role "…name…"` line (name compared case-insensitively, as a substring; with
 * `exact`, the whole name as written) in what the agent was shown: a snapshot line
 * `- button "Search" [ref=e5]`, an interactive line, or a diff line (`+ button …`). Throws when there
 * is none: the agent would be stuck.
 */
export function refOf(text: string, role: string, name: string, options: { exact?: boolean } = {}): string {
  const pattern = options.exact
    ? `${escapeRegex(role)} "${escapeRegex(name)}"[^\\n]*?\\[ref=([^\\]]+)\\]`
    : `${escapeRegex(role)} "[^"\\n]*${escapeRegex(name)}[^"\\n]*"[^\\n]*?\\[ref=([^\\]]+)\\]`;
  const ref = new RegExp(pattern, options.exact ? '' : 'i').exec(text)?.[1];
  if (ref === undefined) throw new Error(`no ${role} "${name}" with a ref in what the agent saw`);
  return ref;
}

/**
 * The ref of the first line of `role` whose text (after its colon, not its name) is `content`:
 * `- generic [ref=e379]: set greeting`, `- textbox [active] [ref=e143]: New Tiddler` (a find's
 * context marks it `<- match`).
 */
export function refOfText(text: string, role: string, content: string): string {
  const re = new RegExp(
    `^[\\s+~-]*${escapeRegex(role)}\\b[^\\n]*?\\[ref=([^\\]]+)\\][^\\n]*?: "?${escapeRegex(content)}"?(?: <- match)?\\s*$`,
    'im',
  );
  const ref = re.exec(text)?.[1];
  if (ref === undefined) throw new Error(`no ${role} showing "${content}" with a ref in what the agent saw`);
  return ref;
}

/**
 * The text a snapshot's subtree reads as, its lines' texts joined: a signature Sphinx renders as one
 * element per parameter comes back as one line (`json.dumps(obj, *, …)`).
 */
export function joinedText(snapshot: string): string {
  const parts: string[] = [];
  for (const line of snapshot.split('\n')) {
    const m = /^\s*- (?:text|[a-z]+(?: "[^"]*")?(?: \[[^\]]*\])*): (.*)$/.exec(line);
    const part = m?.[1];
    if (part === undefined) continue;
    parts.push(/^".*"$/.test(part) ? part.slice(1, -1) : part);
  }
  return parts.join('');
}

/** The first capture of `re` in `text`, trimmed; throws when the agent cannot find it. */
export function readValue(text: string, re: RegExp, what: string): string {
  const value = re.exec(text)?.[1];
  if (value === undefined) throw new Error(`the agent did not find ${what} in what it read`);
  return value.trim();
}

/** A string field of a result. */
export const str = (o: Record<string, unknown> | undefined, key: string): string => {
  const v = o?.[key];
  return typeof v === 'string' ? v : JSON.stringify(v ?? null);
};

/**
 * The peer's actions answer a link to a snapshot file on the server's disk, not the snapshot
 * (`@playwright/mcp` 0.0.83 writes it to its output directory): an agent reads the page with
 * browser_snapshot (the whole page) or browser_find (the lines around a text it knows to look for).
 */
export async function see(a: PeerAgent, url?: string): Promise<string> {
  if (url !== undefined) await a.tool('browser_navigate', { url });
  return a.tool('browser_snapshot');
}

/** One field of browser_fill_form, its target read from what the agent was shown. */
export const field = (snapshot: string, role: string, name: string, value: string) => ({
  name,
  type: role,
  target: refOf(snapshot, role, name),
  value,
});

/** One match of a find.* answer. */
export interface FoundMatch {
  ref: string | null;
  /** find.byRole's line ('' for find.byText, whose context holds the matching line). */
  line: string;
  context: string;
}

/** The matches a find.* answer listed. */
export function matchesOf(found: Record<string, unknown> | undefined): FoundMatch[] {
  const matches = Array.isArray(found?.matches) ? (found.matches as unknown[]) : [];
  return matches.flatMap((m) => {
    if (typeof m !== 'object' || m === null) return [];
    const o = m as Record<string, unknown>;
    const ref = typeof o.ref === 'string' ? o.ref : null;
    return [
      {
        ref,
        line: typeof o.line === 'string' ? o.line : '',
        context: typeof o.context === 'string' ? o.context : '',
      },
    ];
  });
}

/** The lines a find.* answer showed: each match's line and context. */
export function matchText(found: Record<string, unknown> | undefined): string {
  return matchesOf(found)
    .map((m) => [m.line, m.context].filter((t) => t !== '').join('\n'))
    .join('\n');
}
