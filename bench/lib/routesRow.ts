// The routes row of issue 14: "a session with 10 active routes costs ≤ 1.1× the p50 of the same page
// load without routes in the same run". Two sessions of the service load the same fixture page
// (/routes/assets: the document, two stylesheets, two scripts and a fetch) with page.goto (load),
// interleaved, the order swapped every iteration; one session has no route, the other 10: nine
// patterns no request of the page matches and one that matches a stylesheet and continues it with a
// header (so every request still reaches the fixture server, as without routes).
import type { ServiceSystem } from '../systems/service.js';
import { summarize, timed, type Summary } from './stats.js';

export const ROUTES_ROW_PAGE = '/routes/assets';
export const ROUTES_ROW_COUNT = 10;
/** Target: the p50 with routes ≤ this × the p50 without. */
export const ROUTES_ROW_TARGET = 1.1;

export interface RoutesRowResult {
  page: string;
  routes: number;
  without: Summary;
  with: Summary;
  /** p50 with routes ÷ p50 without. */
  ratio: number;
  target: number;
  met: boolean;
}

export async function measureRoutesRow(
  service: ServiceSystem,
  base: string,
  counts: { iterations: number; warmup: number },
  log: (line: string) => void,
): Promise<RoutesRowResult> {
  const plain = await service.createSession();
  const routed = await service.createSession();
  try {
    for (let i = 0; i < ROUTES_ROW_COUNT - 1; i++)
      await routed.route({ pattern: `**/no-such-path-${i}/**`, action: 'abort' });
    await routed.route({
      pattern: '**/routes/asset/b.css',
      action: 'continue',
      headers: { 'x-bench-route': '1' },
    });
    const url = `${base}${ROUTES_ROW_PAGE}`;
    const samples: { without: number[]; with: number[] } = { without: [], with: [] };
    const total = counts.warmup + counts.iterations;
    for (let i = 0; i < total; i++) {
      const order = i % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const which of order) {
        const s = which === 'with' ? routed : plain;
        const ms = await timed(() => s.goto(url, 'load'));
        if (i >= counts.warmup) samples[which].push(ms);
      }
    }
    const without = summarize(samples.without);
    const withRoutes = summarize(samples.with);
    const ratio = withRoutes.p50 / without.p50;
    log(
      `routes: goto ${ROUTES_ROW_PAGE} p50 ${without.p50.toFixed(1)} ms without routes, ${withRoutes.p50.toFixed(1)} ms with ${ROUTES_ROW_COUNT} (${ratio.toFixed(2)}×, target ≤ ${ROUTES_ROW_TARGET}×)`,
    );
    return {
      page: ROUTES_ROW_PAGE,
      routes: ROUTES_ROW_COUNT,
      without,
      with: withRoutes,
      ratio,
      target: ROUTES_ROW_TARGET,
      met: ratio <= ROUTES_ROW_TARGET,
    };
  } finally {
    await plain.close();
    await routed.close();
  }
}

/** The report's section for the row. */
export function routesSection(r: RoutesRowResult): string[] {
  const ms = (x: number) => x.toFixed(1);
  return [
    '## Routes (issue 14)',
    '',
    `page.goto ${r.page} (load) in a session without routes and in one with ${r.routes} (nine that match no request of the page, one that continues a stylesheet with a header), interleaved. Target: p50 with routes ≤ ${r.target} × p50 without.`,
    '',
    '| session | n | p50 ms | p90 ms |',
    '| --- | --- | --- | --- |',
    `| without routes | ${r.without.n} | ${ms(r.without.p50)} | ${ms(r.without.p90)} |`,
    `| ${r.routes} routes | ${r.with.n} | ${ms(r.with.p50)} | ${ms(r.with.p90)} |`,
    '',
    `Ratio of p50s: **${r.ratio.toFixed(2)}×** (target ≤ ${r.target}×): ${r.met ? 'met' : 'NOT met'}.`,
    '',
  ];
}
