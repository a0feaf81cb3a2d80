// The shape of one benchmark run's results, and the targets computed from it.
import type { Summary } from './stats.js';
import type { ActionKind, SystemName, Target, TextRead } from '../systems/types.js';
import type { RoutesRowResult } from './routesRow.js';
import { scaleTargets, type ScaleResult } from './scale.js';
import { churnTargets, type ChurnResult } from './churn.js';

/**
 * The actions of issue 11 timed one call each (floor: the bare Playwright call; service: the method,
 * which also settles and reports), in the order they run on one fresh load of /widgets per iteration
 * (drag on a fresh load of /sortable). Each acts for real: the load resets the page.
 */
export const ACTION_OPS = [
  { id: 'act.hover', kind: 'hover', label: 'page.hover (#menu)' },
  { id: 'act.dblclick', kind: 'dblclick', label: 'page.dblclick (#dbl)' },
  { id: 'act.check', kind: 'check', label: 'page.check (#news, unchecked)' },
  { id: 'act.select', kind: 'select', label: 'page.select (#size, s or l by iteration)' },
  { id: 'act.type', kind: 'type', label: "page.type ('Par' into #city, no delay)" },
  { id: 'act.focus', kind: 'focus', label: 'page.focus (#note)' },
  { id: 'act.keyboard', kind: 'keyboard', label: 'page.keyboard (press Tab)' },
  { id: 'act.mouse', kind: 'mouse', label: 'page.mouse (click at 1000,300)' },
  { id: 'act.scroll', kind: 'scroll', label: 'page.scroll (#far into view)' },
  { id: 'act.drag', kind: 'drag', label: 'page.drag (Alpha onto Charlie on /sortable, 10 steps)' },
] as const satisfies readonly { id: `act.${ActionKind}`; kind: ActionKind; label: string }[];

/** The page.act row: five fills and a click on /inputs, one by one and as one page.act. */
export const ACT_OPS = [
  {
    id: 'act.calls',
    label: '5 fills + 1 click on /inputs, one call each (floor: in-process; service: 6 HTTP calls)',
  },
  { id: 'act.batch', label: '5 fills + 1 click on /inputs as one `page.act` (service)' },
] as const;

/** Every latency operation, in the order it runs within an iteration. */
export const LATENCY_OPS = [
  { id: 'session.create', label: 'session create (floor: newContext + newPage)' },
  { id: 'session.close', label: 'session close' },
  { id: 'goto.static.load', label: 'goto /static (load)' },
  { id: 'goto.projects.networkidle', label: 'goto /projects (networkidle; XHR after 800 ms)' },
  { id: 'goto.projects.loadText', label: "goto /projects (load) + wait for text 'Apollo'" },
  { id: 'text.main.first', label: 'text of `main`, first read of the document' },
  { id: 'text.main.repeat', label: 'text of `main`, repeated read of the same document' },
  {
    id: 'snapshot.projects',
    label: "page snapshot of /projects (after its 'Apollo' text arrives)",
  },
  { id: 'click', label: "click (button 'New Project' on /projects)" },
  { id: 'fill', label: 'fill (#name on /form)' },
  { id: 'screenshot', label: 'screenshot (viewport PNG, 1280×800)' },
  { id: 'goto.big.load', label: 'goto /big (~200 KB page, load)' },
  { id: 'text.big', label: 'text of /big (~200 KB page)' },
  {
    id: 'snapshot.inputs',
    label: 'page snapshot of /inputs (a form with every input type)',
  },
  { id: 'snapshot.snapshot', label: 'page snapshot of /snapshot (300-item list + iframe)' },
  ...ACTION_OPS,
  ...ACT_OPS,
  { id: 'flow', label: 'flow: create → goto /static → text of main → close' },
] as const;

/**
 * The single-call operations of issue 15's per-call target: each one's p50 within
 * max(1.05 × floor, floor + 2 ms).
 */
export const PER_CALL_OP_IDS: readonly OpId[] = [
  'goto.static.load',
  'goto.big.load',
  'text.main.first',
  'text.main.repeat',
  'click',
  'fill',
  'screenshot',
  'text.big',
  'session.close',
  ...ACTION_OPS.map((o) => o.id),
];

/** Per-call target: a p50 this many times the floor's, or the floor's plus PER_CALL_SLACK_MS, whichever is more. */
export const PER_CALL_RATIO = 1.05;
export const PER_CALL_SLACK_MS = 2;

/** The latency ops of the acting section (issue 11). */
export const ACTING_OP_IDS: readonly OpId[] = [...ACTION_OPS.map((o) => o.id), ...ACT_OPS.map((o) => o.id)];

export type OpId = (typeof LATENCY_OPS)[number]['id'];

/**
 * The fixture pages an agent's snapshot is measured on: the latency op of the whole snapshot, a text the
 * whole snapshot must hold, and one the "what can I do" reading must hold (something to act on).
 */
export const SNAPSHOT_PAGES = [
  { path: '/inputs', op: 'snapshot.inputs', probe: 'Dismiss', action: 'Save' },
  { path: '/snapshot', op: 'snapshot.snapshot', probe: 'Item 299', action: 'Greet' },
  { path: '/projects', op: 'snapshot.projects', probe: 'Apollo', action: 'New Project' },
] as const satisfies readonly { path: string; op: OpId; probe: string; action: string }[];

export type SnapshotPath = (typeof SNAPSHOT_PAGES)[number]['path'];

/**
 * Where the diff is measured: a whole snapshot, a fill of one textbox by the ref that snapshot gave it
 * (found by role and name), then `page.snapshot {since}`.
 */
export const DIFF_PAGES = [
  { path: '/inputs', field: { selector: '[name=text]', role: 'textbox', name: 'Text' }, value: 'Grace' },
  { path: '/snapshot', field: { selector: '[name=name]', role: 'textbox', name: 'Name' }, value: 'Grace' },
] as const satisfies readonly { path: SnapshotPath; field: Target; value: string }[];

export type PerSystem<T> = Partial<Record<SystemName, T>>;

export interface LatencyEntry {
  label: string;
  /** Milliseconds, after warm-up. */
  samples: PerSystem<number[]>;
  summary: PerSystem<Summary>;
  /** Systems with no equivalent operation. */
  unsupported: SystemName[];
  /** The service's own time for the same calls (its /metrics histogram), ms: the rest is transport. */
  serviceServerSide: number[];
  serviceServerSummary: Summary | null;
}

export interface MemoryPoint {
  sessions: number;
  baselinePssKiB: number;
  totalPssKiB: number;
  baselinePrivateKiB: number;
  totalPrivateKiB: number;
  processes: number;
  /** (total − baseline) / sessions, MiB: what one more idle session costs. */
  perSessionPssMiB: number;
  perSessionPrivateMiB: number;
  /** total / sessions, MiB: the browser's own share included. */
  totalPerSessionPssMiB: number;
}

export interface ThroughputPoint {
  clients: number;
  flows: number;
  seconds: number;
  flowsPerSec: number;
  errors: number;
}

/** "What can I do on this page" on one fixture page: what each system hands the agent. */
export interface ActionablePoint {
  path: SnapshotPath;
  /** service: `page.snapshot {interactive: true}` (textChars = its `length`); floor and peer: their whole snapshot. */
  systems: PerSystem<TextRead>;
}

/** The service's diff after one fill, against the whole snapshot taken before it. */
export interface SnapshotDiffPoint {
  path: SnapshotPath;
  /** The field filled between the two snapshots, as role "name" [ref] from the whole snapshot. */
  field: string;
  revision: number;
  /** `length` of the whole snapshot and of the diff (characters of each answer). */
  fullChars: number;
  diffChars: number;
  /** Characters of the whole JSON-RPC responses that carried them. */
  fullResponseChars: number;
  diffResponseChars: number;
  changes: { added: number; removed: number; changed: number };
  /** The diff as the service answered it. */
  diff: string;
}

export interface BenchError {
  phase: string;
  system: SystemName;
  op: string;
  message: string;
}

export interface TargetResult {
  id: string;
  measure: string;
  target: string;
  measured: string;
  /** The ratio (or difference, for text.repeat) the verdict is made on; null when not measurable. */
  value: number | null;
  met: boolean | null;
}

export interface BenchMeta {
  date: string;
  durationSec: number;
  smoke: boolean;
  iterations: number;
  warmup: number;
  nproc: number;
  cpuModel: string;
  totalMemGiB: number;
  node: string;
  os: string;
  chromium: string;
  chromiumPath: string;
  serviceCommit: string;
  /** How the service ran: `built` (node dist/src/main.js) or `source` (tsx); absent in older raw files. */
  serviceEntry?: 'built' | 'source';
  floorPlaywright: string;
  peer: { package: string; version: string; playwright: string } | null;
  systems: SystemName[];
  /** Set when the run measured only one section (`--only acting`); absent: the whole run. */
  only?: 'acting' | 'latency' | 'routes' | 'scale' | 'tasks' | 'realapps' | 'churn' | 'neighbours' | 'fresh';
  memoryLevels: number[];
  concurrency: number[];
  flowsPerClient: number;
  /** argv of each system's browser root process. */
  browserCommands: PerSystem<string[]>;
  /** 1-minute load average at the start and the end: other work on the machine shows here. */
  loadavg: { start: number; end: number };
}

export interface NativeProbe {
  fired: boolean;
  ms: number;
  error?: string;
}

export interface BenchResults {
  meta: BenchMeta;
  latency: Record<OpId, LatencyEntry>;
  /** Playwright's own waitUntil 'networkidle' on the floor, bounded: /static (control) and /projects. */
  floorNativeNetworkidle: { static: NativeProbe; projects: NativeProbe; timeoutMs: number } | null;
  chars: PerSystem<TextRead>;
  /** Absent from raw files of runs before it was measured. */
  actionable?: ActionablePoint[];
  snapshotDiff?: SnapshotDiffPoint[];
  memory: { sessions: number; systems: PerSystem<MemoryPoint> }[];
  throughput: { clients: number; flowsPerClient: number; systems: PerSystem<ThroughputPoint> }[];
  /** The routes row of issue 14; absent from raw files of runs before it was measured. */
  routes?: RoutesRowResult;
  /** The scale curve of issue 15; absent from raw files of runs before it was measured. */
  scale?: ScaleResult;
  /** Session creation under churn (issue 15); absent from raw files of runs before it was measured. */
  churn?: ChurnResult;
  targets: TargetResult[];
  errors: BenchError[];
}

export function emptyLatencyEntry(label: string, unsupported: SystemName[] = []): LatencyEntry {
  return { label, samples: {}, summary: {}, unsupported, serviceServerSide: [], serviceServerSummary: null };
}

/** A raw file of an older run (`--render`) gets an empty entry for each latency op it did not measure. */
export function withEveryOp(r: BenchResults): BenchResults {
  for (const { id, label } of LATENCY_OPS) r.latency[id] ??= emptyLatencyEntry(label);
  return r;
}

const p50 = (r: BenchResults, op: OpId, sys: SystemName): number | undefined =>
  r.latency[op].summary[sys]?.p50;

const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function ratioTarget(
  r: BenchResults,
  id: OpId,
  measure: string,
  limit: number,
  target: string,
): TargetResult {
  const svc = p50(r, id, 'service');
  const floor = p50(r, id, 'floor');
  if (svc === undefined || floor === undefined || floor <= 0)
    return { id, measure, target, measured: 'not measured', value: null, met: null };
  const ratio = svc / floor;
  return {
    id,
    measure,
    target,
    measured: `${fmt(ratio)} × floor (${fmt(svc, 1)} vs ${fmt(floor, 1)} ms)`,
    value: ratio,
    met: ratio <= limit,
  };
}

/**
 * Whether a target belongs in the report of a run of one section: `--only acting` shows its rows,
 * `--only latency` every target the latency rows measured.
 */
export function inOnlyRun(only: BenchMeta['only'], t: TargetResult): boolean {
  if (only === 'latency') return t.value !== null;
  return ACTING_OP_IDS.some((id) => id === t.id);
}

/** Issue 15's per-call target of one operation: p50 ≤ max(1.05 × floor, floor + 2 ms). */
function perCallTarget(r: BenchResults, id: OpId): TargetResult {
  const measure = `per call (issue 15): ${r.latency[id].label}, p50`;
  const target = `≤ max(${PER_CALL_RATIO} × floor, floor + ${PER_CALL_SLACK_MS} ms)`;
  const svc = p50(r, id, 'service');
  const floor = p50(r, id, 'floor');
  const tid = `percall.${id}`;
  if (svc === undefined || floor === undefined || floor <= 0)
    return { id: tid, measure, target, measured: 'not measured', value: null, met: null };
  const ratio = svc / floor;
  const diff = svc - floor;
  return {
    id: tid,
    measure,
    target,
    measured: `${fmt(ratio)} × floor, floor ${diff >= 0 ? '+' : '−'} ${fmt(Math.abs(diff))} ms (${fmt(svc)} vs ${fmt(floor)} ms)`,
    value: ratio,
    met: svc <= Math.max(PER_CALL_RATIO * floor, floor + PER_CALL_SLACK_MS),
  };
}

/** The targets (ratios of p50s from this run). */
export function computeTargets(r: BenchResults): TargetResult[] {
  const out: TargetResult[] = [];
  out.push(ratioTarget(r, 'flow', 'end-to-end flow create → goto → text → close', 1.1, '≤ 1.10 × floor'));
  out.push(
    ratioTarget(
      r,
      'session.create',
      '`session.create` as the caller sees it',
      0.1,
      "≤ 0.10 × floor's context+page creation",
    ),
  );

  const svcText = p50(r, 'text.main.repeat', 'service');
  const floorText = p50(r, 'text.main.repeat', 'floor');
  if (svcText === undefined || floorText === undefined) {
    out.push({
      id: 'text.main.repeat',
      measure: 'repeated `page.text` on the same document',
      target: '≤ floor + 2 ms',
      measured: 'not measured',
      value: null,
      met: null,
    });
  } else {
    const diff = svcText - floorText;
    out.push({
      id: 'text.main.repeat',
      measure: 'repeated `page.text` on the same document',
      target: '≤ floor + 2 ms',
      measured: `floor ${diff >= 0 ? '+' : '−'} ${fmt(Math.abs(diff))} ms (${fmt(svcText)} vs ${fmt(floorText)} ms)`,
      value: diff,
      met: diff <= 2,
    });
  }

  out.push(
    ratioTarget(
      r,
      'goto.projects.networkidle',
      "`waitUntil: 'networkidle'` on the XHR page",
      0.7,
      "≤ 0.70 × floor's networkidle",
    ),
  );

  const mem = r.memory.at(-1);
  const memSvc = mem?.systems.service?.perSessionPssMiB;
  const memFloor = mem?.systems.floor?.perSessionPssMiB;
  if (mem === undefined || memSvc === undefined || memFloor === undefined || memFloor <= 0) {
    out.push({
      id: 'memory',
      measure: 'Chromium memory per idle session (PSS)',
      target: "≤ 0.50 × floor's",
      measured: 'not measured',
      value: null,
      met: null,
    });
  } else {
    const ratio = memSvc / memFloor;
    out.push({
      id: 'memory',
      measure: `Chromium memory per idle session (PSS, ${mem.sessions} sessions)`,
      target: "≤ 0.50 × floor's",
      measured: `${fmt(ratio)} × floor (${fmt(memSvc, 1)} vs ${fmt(memFloor, 1)} MiB)`,
      value: ratio,
      met: ratio <= 0.5,
    });
  }

  const tp = r.throughput.at(-1);
  const tpSvc = tp?.systems.service?.flowsPerSec;
  const tpFloor = tp?.systems.floor?.flowsPerSec;
  const tpPeer = tp?.systems.peer?.flowsPerSec;
  if (tp === undefined || tpSvc === undefined || tpFloor === undefined || tpFloor <= 0) {
    out.push({
      id: 'throughput',
      measure: 'flows per second at the most concurrent clients',
      target: '≥ 1.0 × floor and ≥ 2 × peer',
      measured: 'not measured',
      value: null,
      met: null,
    });
  } else {
    const vsFloor = tpSvc / tpFloor;
    const vsPeer = tpPeer !== undefined && tpPeer > 0 ? tpSvc / tpPeer : undefined;
    out.push({
      id: 'throughput',
      measure: `flows per second at ${tp.clients} concurrent clients`,
      target: '≥ 1.0 × floor and ≥ 2 × peer',
      measured:
        `${fmt(vsFloor)} × floor, ` +
        (vsPeer === undefined ? 'peer not measured' : `${fmt(vsPeer)} × peer`) +
        ` (${fmt(tpSvc)} flows/s)`,
      value: vsFloor,
      met: vsFloor >= 1 && (vsPeer === undefined ? true : vsPeer >= 2),
    });
  }

  const charsSvc = r.chars.service?.textChars;
  const charsPeer = r.chars.peer?.textChars;
  const charsMeasure = 'characters returned for "what does the page say" (text vs snapshot)';
  if (charsSvc === undefined || charsPeer === undefined || charsPeer <= 0) {
    out.push({
      id: 'chars',
      measure: charsMeasure,
      target: "≤ 0.2 × the peer's snapshot",
      measured: charsSvc === undefined ? 'not measured' : `${charsSvc} chars; peer not measured`,
      value: null,
      met: null,
    });
  } else {
    const ratio = charsSvc / charsPeer;
    out.push({
      id: 'chars',
      measure: charsMeasure,
      target: "≤ 0.2 × the peer's snapshot",
      measured: `${fmt(ratio)} × peer (${charsSvc} vs ${charsPeer} chars)`,
      value: ratio,
      met: ratio <= 0.2,
    });
  }

  out.push(...snapshotTargets(r));
  out.push(...actingTargets(r));
  out.push(...PER_CALL_OP_IDS.map((id) => perCallTarget(r, id)));
  if (r.scale) out.push(...scaleTargets(r.scale));
  if (r.churn) out.push(...churnTargets(r.churn));
  return out;
}

/** Acting (issue 11): each action ≤ floor + 5 ms; page.act ≤ 0.5 × the same six calls over HTTP. */
export function actingTargets(r: BenchResults): TargetResult[] {
  const out: TargetResult[] = [];
  for (const { id, label } of ACTION_OPS) {
    const measure = `${label}, p50`;
    const target = '≤ floor + 5 ms';
    const svc = p50(r, id, 'service');
    const floor = p50(r, id, 'floor');
    if (svc === undefined || floor === undefined) {
      out.push({ id, measure, target, measured: 'not measured', value: null, met: null });
      continue;
    }
    const diff = svc - floor;
    out.push({
      id,
      measure,
      target,
      measured: `floor ${diff >= 0 ? '+' : '−'} ${fmt(Math.abs(diff))} ms (${fmt(svc)} vs ${fmt(floor)} ms)`,
      value: diff,
      met: diff <= 5,
    });
  }
  const measure = '`page.act` with 5 fills and a click, against the same 6 calls one by one over HTTP';
  const target = '≤ 0.50 × the 6 calls';
  const batch = p50(r, 'act.batch', 'service');
  const calls = p50(r, 'act.calls', 'service');
  if (batch === undefined || calls === undefined || calls <= 0)
    out.push({ id: 'act.batch', measure, target, measured: 'not measured', value: null, met: null });
  else {
    const ratio = batch / calls;
    out.push({
      id: 'act.batch',
      measure,
      target,
      measured: `${fmt(ratio)} × the 6 calls (${fmt(batch, 1)} vs ${fmt(calls, 1)} ms)`,
      value: ratio,
      met: ratio <= 0.5,
    });
  }
  return out;
}

/** Page snapshot (issue 10): latency per page, "what can I do" characters per page and in total, diff size. */
function snapshotTargets(r: BenchResults): TargetResult[] {
  const out: TargetResult[] = [];
  for (const { path, op } of SNAPSHOT_PAGES)
    out.push(
      ratioTarget(r, op, `\`page.snapshot\` of ${path} (whole)`, 1.2, "≤ 1.20 × floor's `ariaSnapshot`"),
    );

  const actionTarget = "≤ 0.50 × the peer's `browser_snapshot`";
  const actionMeasure = (where: string): string =>
    `characters for "what can I do on this page" (\`interactive: true\`), ${where}`;
  const readings = SNAPSHOT_PAGES.map(({ path }) => {
    const point = r.actionable?.find((a) => a.path === path);
    return { path, svc: point?.systems.service?.textChars, peer: point?.systems.peer?.textChars };
  });
  const actionRow = (
    id: string,
    where: string,
    svc: number | undefined,
    peer: number | undefined,
  ): TargetResult => {
    const measure = actionMeasure(where);
    if (svc === undefined || peer === undefined || peer <= 0)
      return {
        id,
        measure,
        target: actionTarget,
        measured: svc === undefined ? 'not measured' : `${svc} chars; peer not measured`,
        value: null,
        met: null,
      };
    const ratio = svc / peer;
    return {
      id,
      measure,
      target: actionTarget,
      measured: `${fmt(ratio)} × peer (${svc} vs ${peer} chars)`,
      value: ratio,
      met: ratio <= 0.5,
    };
  };
  for (const { path, svc, peer } of readings) out.push(actionRow(`actionable.${path}`, path, svc, peer));
  const sum = (pick: (x: (typeof readings)[number]) => number | undefined): number | undefined =>
    readings.every((x) => pick(x) !== undefined)
      ? readings.reduce((total, x) => total + (pick(x) ?? 0), 0)
      : undefined;
  out.push(
    actionRow(
      'actionable.total',
      `the ${readings.length} pages together`,
      sum((x) => x.svc),
      sum((x) => x.peer),
    ),
  );

  for (const { path } of DIFF_PAGES) {
    const id = `snapshot.diff.${path}`;
    const measure = `\`page.snapshot {since}\` after one fill on ${path}, against the whole snapshot`;
    const target = '≤ 0.10 × the whole snapshot';
    const d = r.snapshotDiff?.find((x) => x.path === path);
    if (d === undefined || d.fullChars <= 0) {
      out.push({ id, measure, target, measured: 'not measured', value: null, met: null });
      continue;
    }
    const ratio = d.diffChars / d.fullChars;
    out.push({
      id,
      measure,
      target,
      measured: `${fmt(ratio, 3)} × whole (${d.diffChars} vs ${d.fullChars} chars)`,
      value: ratio,
      met: ratio <= 0.1,
    });
  }
  return out;
}
