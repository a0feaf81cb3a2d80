// What an agent holds while it does a task: one tool per call, every answer read (counted as
// characters: the JSON result for the service, the MCP text content for the peer), and the few
// helpers an agent's reading amounts to (find the ref of `role "name"` in what it was shown).
import type { PeerSession } from '../systems/peer.js';
import type { ServiceSession } from '../systems/service.js';

export interface Meter {
  calls: number;
  chars: number;
  /** Every call and its answer, when tracing (TASKS_TRACE=1). */
  trace: string[] | undefined;
}

export const newMeter = (trace: boolean): Meter => ({ calls: 0, chars: 0, trace: trace ? [] : undefined });

function record(meter: Meter, call: string, answer: string): void {
  meter.calls++;
  meter.chars += answer.length;
  meter.trace?.push(`>>> ${call}\n<<< (${answer.length} chars) ${answer}`);
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
    try {
      const { result } = await this.session.call(method, params);
      record(this.meter, `${method} ${JSON.stringify(params)}`, JSON.stringify(result));
      return result;
    } catch (error) {
      record(this.meter, `${method} ${JSON.stringify(params)}`, String(error));
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
    try {
      const reply = await this.session.tool(name, args);
      record(this.meter, `${name} ${JSON.stringify(args)}`, reply.text);
      return reply.text;
    } catch (error) {
      record(this.meter, `${name} ${JSON.stringify(args)}`, String(error));
      throw error;
    }
  }
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The ref of the first `role "…name…"` line (name compared case-insensitively, as a substring) in
 * what the agent was shown: a snapshot line `- button "Search" [ref=e5]`, an interactive line, or a
 * diff line (`+ button …`). Throws when there is none: the agent would be stuck.
 */
export function refOf(text: string, role: string, name: string): string {
  const re = new RegExp(
    `${escapeRegex(role)} "[^"\\n]*${escapeRegex(name)}[^"\\n]*"[^\\n]*?\\[ref=([^\\]]+)\\]`,
    'i',
  );
  const ref = re.exec(text)?.[1];
  if (ref === undefined) throw new Error(`no ${role} "${name}" with a ref in what the agent saw`);
  return ref;
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
