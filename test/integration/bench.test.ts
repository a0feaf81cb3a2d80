// Smoke test of the benchmark (bench/run.ts): tiny counts, floor and service only. It checks that a run
// produces every measure as a finite number and stops what it started; it asserts no timing. Its bound
// is generous: on a shared 2-core machine under load the smoke (now with the scale phase at levels 1 and 2)
// took over 180 s.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultOptions, main, type BenchOutput } from '../../bench/run.js';
import {
  ACTION_OPS,
  DIFF_PAGES,
  LATENCY_OPS,
  PER_CALL_OP_IDS,
  SNAPSHOT_PAGES,
} from '../../bench/lib/results.js';
import { scaleTargets } from '../../bench/lib/scale.js';
import { churnTargets } from '../../bench/lib/churn.js';
import type { BenchSystem } from '../../bench/systems/types.js';

const finite = (x: number | undefined): boolean => typeof x === 'number' && Number.isFinite(x);

let outDir: string | undefined;

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('benchmark smoke run', () => {
  it('produces every measure with finite numbers, writes its files, and stops every process', async () => {
    outDir = await mkdtemp(path.join(tmpdir(), 'bench-smoke-'));
    const options = {
      ...defaultOptions(true),
      skipPeer: true,
      quiet: true,
      outDir,
      resultsPath: path.join(outDir, 'RESULTS.md'),
      iterations: 2,
      warmup: 0,
      memoryLevels: [1, 2],
      concurrency: [1, 2],
      flowsPerClient: 1,
    };
    const systems: BenchSystem[] = [];
    const out: BenchOutput = await main(options, { onSystem: (s) => systems.push(s) });
    const r = out.results;

    expect(r.meta.systems).toEqual(['floor', 'service']);
    expect(r.errors).toEqual([]);
    for (const { id } of LATENCY_OPS) {
      for (const sys of ['floor', 'service'] as const) {
        const summary = r.latency[id].summary[sys];
        // page.act has no in-process equivalent: the floor's row is n/a.
        if (r.latency[id].unsupported.includes(sys)) {
          expect(summary, `${id} ${sys}`).toBeUndefined();
          continue;
        }
        expect(summary, `${id} ${sys}`).toBeDefined();
        expect(summary?.n, `${id} ${sys}`).toBe(2);
        expect(finite(summary?.p50) && finite(summary?.p90), `${id} ${sys}`).toBe(true);
      }
      expect(r.latency[id].serviceServerSide).toHaveLength(2);
    }
    expect(r.floorNativeNetworkidle?.static.fired).toBe(true);

    for (const sys of ['floor', 'service'] as const) {
      expect(r.chars[sys]?.textChars).toBeGreaterThan(0);
      expect(finite(r.chars[sys]?.responseChars)).toBe(true);
    }

    expect(r.actionable?.map((a) => a.path)).toEqual(SNAPSHOT_PAGES.map((p) => p.path));
    for (const point of r.actionable ?? []) {
      for (const sys of ['floor', 'service'] as const) {
        expect(point.systems[sys]?.textChars, `actionable ${point.path} ${sys}`).toBeGreaterThan(0);
        expect(finite(point.systems[sys]?.responseChars), `actionable ${point.path} ${sys}`).toBe(true);
      }
    }
    expect(r.snapshotDiff?.map((d) => d.path)).toEqual(DIFF_PAGES.map((p) => p.path));
    for (const d of r.snapshotDiff ?? []) {
      expect(d.diffChars, d.path).toBeGreaterThan(0);
      expect(d.fullChars, d.path).toBeGreaterThan(d.diffChars);
    }

    expect(r.memory.map((m) => m.sessions)).toEqual([1, 2]);
    for (const level of r.memory) {
      for (const sys of ['floor', 'service'] as const) {
        const p = level.systems[sys];
        expect(finite(p?.perSessionPssMiB) && finite(p?.totalPssKiB), `memory ${level.sessions} ${sys}`).toBe(
          true,
        );
        expect(p?.totalPssKiB).toBeGreaterThan(0);
      }
    }

    expect(r.throughput.map((t) => t.clients)).toEqual([1, 2]);
    for (const level of r.throughput) {
      for (const sys of ['floor', 'service'] as const) {
        const p = level.systems[sys];
        expect(p?.flows, `throughput ${level.clients} ${sys}`).toBe(level.clients);
        expect(p?.flowsPerSec).toBeGreaterThan(0);
      }
    }

    // The scale curve (issue 15) at the smoke levels 1 and 2: every point finite, no error, the chart written.
    const scale = r.scale;
    expect(scale?.sessions).toEqual([1, 2]);
    expect(scale?.errors).toEqual([]);
    for (const level of scale?.memory ?? [])
      for (const sys of ['floor', 'service'] as const) {
        const p = level.systems[sys];
        expect(finite(p?.perSessionPssMiB) && finite(p?.driverRssMiB), `scale ${level.sessions} ${sys}`).toBe(
          true,
        );
        expect(p?.text.n, `scale text ${level.sessions} ${sys}`).toBe(3);
        expect(finite(p?.text.p50) && finite(p?.text.p99), `scale text ${level.sessions} ${sys}`).toBe(true);
      }
    for (const workload of ['flows', 'loops'] as const) {
      expect(scale?.[workload].map((l) => l.clients)).toEqual([1, 2]);
      for (const level of scale?.[workload] ?? [])
        for (const sys of ['floor', 'service'] as const) {
          const p = level.systems[sys];
          expect(p?.done, `${workload} ${level.clients} ${sys}`).toBe(level.clients);
          expect(p?.errors, `${workload} ${level.clients} ${sys}`).toBe(0);
          expect(p?.perSec).toBeGreaterThan(0);
        }
    }
    const chart = await readFile(path.join(outDir, 'scale.svg'), 'utf8');
    expect(chart.startsWith('<svg')).toBe(true);
    expect(chart).toContain('<polyline');
    const scaleIds = scale ? scaleTargets(scale).map((t) => t.id) : [];
    expect(scaleIds).toContain('scale.errors');
    // The churn phase (session creation with no idle gaps) runs in the smoke too: one target per pattern.
    expect(r.churn).toBeDefined();
    const churnIds = r.churn ? churnTargets(r.churn).map((t) => t.id) : [];
    expect(churnIds).toEqual(['churn.1', 'churn.4', 'churn.8']);

    expect(r.targets.map((t) => t.id).sort()).toEqual(
      [
        'chars',
        'flow',
        'goto.projects.networkidle',
        'memory',
        'session.create',
        'text.main.repeat',
        'throughput',
        ...SNAPSHOT_PAGES.map((p) => p.op),
        ...SNAPSHOT_PAGES.map((p) => `actionable.${p.path}`),
        'actionable.total',
        ...DIFF_PAGES.map((p) => `snapshot.diff.${p.path}`),
        ...ACTION_OPS.map((o) => o.id),
        'act.batch',
        ...PER_CALL_OP_IDS.map((id) => `percall.${id}`),
        ...scaleIds,
        ...churnIds,
      ].sort(),
    );
    // The characters targets compare with the peer, which this run skips.
    // The scale targets sit at 128 sessions and 16 and 32 clients, which the smoke levels never reach.
    const atSmokeLevels = (id: string): boolean => !id.startsWith('scale.') || id === 'scale.errors';
    for (const t of r.targets.filter(
      (t) => t.id !== 'chars' && !t.id.startsWith('actionable.') && atSmokeLevels(t.id),
    )) {
      expect(finite(t.value ?? undefined), t.id).toBe(true);
      expect(typeof t.met, t.id).toBe('boolean');
    }

    const raw = JSON.parse(await readFile(out.rawPath, 'utf8')) as { latency: Record<string, unknown> };
    expect(Object.keys(raw.latency)).toEqual(LATENCY_OPS.map((o) => o.id));
    const markdown = await readFile(out.resultsPath, 'utf8');
    expect(markdown).toContain('## Targets');
    expect(markdown).toContain('smoke run');

    // Every browser the run started is gone (the service's child process took its browser with it).
    expect(systems.map((s) => s.name)).toEqual(['floor', 'service']);
    for (const sys of systems) {
      const roots = sys.browserRoots();
      expect(roots.length, sys.name).toBeGreaterThan(0);
      for (const pid of roots)
        expect(existsSync(`/proc/${pid}/stat`), `${sys.name} browser ${pid}`).toBe(false);
    }
  }, 300_000);
});
