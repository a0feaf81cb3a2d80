// What the benchmark asks of each system: the same operations, each mapped to that system's own API.

/** After its quiesce (and for a system without one), a system rests this long: Chromium tears a closed context down. */
export const QUIESCE_PAUSE_MS = 500;

export type SystemName = 'floor' | 'service' | 'peer';

/** An element as each system addresses it: a Playwright selector, or (for the peer) a role and name to find its ref. */
export interface Target {
  selector: string;
  role: string;
  name: string;
}

/** What one read returned to the caller. */
export interface TextRead {
  /**
   * Characters of what the agent reads: innerText, page.text's `text`, page.snapshot's `length`, the
   * floor's aria snapshot, the text parts of the peer's tool result.
   */
  textChars: number;
  /** Characters of the whole JSON-RPC response message that carried it (the floor: the text; no transport). */
  responseChars: number;
  /** Whether the reading contains the given probe text, when one was asked for. */
  contains: boolean;
}

/** The actions of issue 11 the acting rows time, one real call each (see bench/run.ts ACTIONS). */
export type ActionKind =
  'hover' | 'dblclick' | 'check' | 'select' | 'type' | 'focus' | 'keyboard' | 'mouse' | 'scroll' | 'drag';

/** One field of the page.act row: a selector and the value to fill. */
export interface FillStep {
  selector: string;
  value: string;
}

export interface BenchSession {
  /** Navigates and waits for `waitUntil` (the peer has no choice: its navigate waits for load and its own settle). */
  goto(url: string, waitUntil: 'load' | 'networkidle'): Promise<void>;
  /** Navigates (load), then waits until `text` is rendered. */
  gotoAndWaitForText(url: string, text: string): Promise<void>;
  /** The visible text of the first element `selector` matches (the peer: a snapshot of that element). */
  readText(selector: string, probe?: string): Promise<TextRead>;
  /** "What does the page say": the whole page as the system reads it to an agent (text, or the peer's snapshot). */
  readPage(probe?: string): Promise<TextRead>;
  /** The whole page as an agent's accessibility snapshot (floor: `ariaSnapshot({mode: 'ai'})`). */
  snapshot(probe?: string): Promise<TextRead>;
  /**
   * "What can I do on this page": the service's interactive view; the floor and the peer have no such
   * view and read their whole snapshot.
   */
  actionable(probe?: string): Promise<TextRead>;
  /** Untimed preparation before click/fill on the current document (the peer needs a snapshot ref). */
  prepare(target: Target): Promise<void>;
  click(target: Target): Promise<void>;
  fill(target: Target, value: string): Promise<void>;
  /**
   * One action of issue 11 on the current document (/widgets, or /sortable for drag); `i` is the
   * iteration, for values that alternate. Systems without it leave it out (their rows are n/a).
   */
  act?(kind: ActionKind, i: number): Promise<void>;
  /** The page.act row one call at a time: each fill, then the click (the service: one HTTP call each). */
  fillsThenClick?(fills: readonly FillStep[], click: string): Promise<void>;
  /** The same steps as one `page.act` call (the service only). */
  actBatch?(fills: readonly FillStep[], click: string): Promise<void>;
  /** A viewport PNG; returns its size in bytes. */
  screenshot(): Promise<number>;
  close(): Promise<void>;
}

export interface BenchSystem {
  readonly name: SystemName;
  /** Operations this system has no equivalent for (skipped, and said so in RESULTS.md). */
  readonly unsupported: ReadonlySet<string>;
  start(): Promise<void>;
  /**
   * A new isolated session. `open: false` lets the peer skip the about:blank navigation that opens its
   * context (its first real navigation does it), as an agent's first call would.
   */
  createSession(options?: { open?: boolean }): Promise<BenchSession>;
  /** Browser processes (roots of the Chromium trees) this system owns. */
  browserRoots(): number[];
  /** The argv of the browser root process, to show that binaries and flags match. */
  browserCommand(): string[];
  stop(): Promise<void>;
  /** Synchronous last resort on SIGINT: kill every process this system started, by pid. */
  killNow(): void;
  /**
   * Milliseconds the system itself has spent handling calls so far (the service: the sum of its
   * rpc_request_duration_seconds histogram on /metrics), to split a call into work and transport.
   */
  serverClockMs?(method?: string): Promise<number>;
  /**
   * Waits until the system's own background work is done (the service: its warm pool holds POOL_SIZE
   * ready contexts again), so the next timed call does not share the CPU with it; false when it
   * gave up waiting (the bench says so in its log).
   */
  quiesce?(): Promise<boolean>;
}
