// The scale curve as an SVG chart, written by hand (no charting package): six small line charts,
// memory and latency against idle sessions, throughput and its latency against clients, the floor and
// the service on each. The x axes are logarithmic (base 2): the levels double.
import type { ScaleLatency, ScaleResult } from './scale.js';
import type { SystemName } from '../systems/types.js';

export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  points: { x: number; y: number }[];
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  /** The x values to tick (the measured levels). */
  xTicks: number[];
  series: Series[];
}

const COLORS: Record<SystemName, string> = { floor: '#7a7a7a', service: '#1565c0', peer: '#2e7d32' };
const PANEL_W = 400;
const PANEL_H = 270;
const MARGIN = { left: 62, right: 16, top: 34, bottom: 46 };
const COLUMNS = 3;

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A round upper bound and step for a y axis from 0 to `max`, about five ticks. */
export function niceAxis(max: number): { top: number; step: number } {
  if (!Number.isFinite(max) || max <= 0) return { top: 1, step: 0.2 };
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  return { top: Math.ceil(max / step) * step, step };
}

/** A tick label: whole numbers as they are, fractions with at most two decimals (0.25, 1.5). */
const label = (v: number): string => (Number.isInteger(v) ? v.toFixed(0) : String(Number(v.toFixed(2))));

/** One panel at (ox, oy): axes, grid, ticks, the lines with their points, and a legend. */
export function panelSvg(p: Panel, ox: number, oy: number): string {
  const w = PANEL_W - MARGIN.left - MARGIN.right;
  const h = PANEL_H - MARGIN.top - MARGIN.bottom;
  const x0 = ox + MARGIN.left;
  const y0 = oy + MARGIN.top;
  const finite = p.series.flatMap((s) => s.points).filter((q) => Number.isFinite(q.y) && q.x > 0);
  const { top, step } = niceAxis(Math.max(0, ...finite.map((q) => q.y)));
  const lo = Math.log2(Math.min(...p.xTicks));
  const hi = Math.log2(Math.max(...p.xTicks));
  const px = (x: number): number => (hi > lo ? x0 + ((Math.log2(x) - lo) / (hi - lo)) * w : x0 + w / 2);
  const py = (y: number): number => y0 + h - (y / top) * h;
  const out: string[] = [];
  out.push(
    `<text x="${ox + PANEL_W / 2}" y="${oy + 20}" text-anchor="middle" font-size="13" font-weight="bold">${esc(p.title)}</text>`,
  );
  for (let v = 0; v <= top + step / 1e6; v += step) {
    const y = py(v).toFixed(1);
    out.push(`<line x1="${x0}" y1="${y}" x2="${x0 + w}" y2="${y}" stroke="#e3e3e3"/>`);
    out.push(`<text x="${x0 - 6}" y="${y}" dy="4" text-anchor="end" font-size="10">${label(v)}</text>`);
  }
  for (const x of p.xTicks) {
    const X = px(x).toFixed(1);
    out.push(`<line x1="${X}" y1="${y0}" x2="${X}" y2="${y0 + h}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${X}" y="${y0 + h + 14}" text-anchor="middle" font-size="10">${x}</text>`);
  }
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  out.push(
    `<text x="${x0 + w / 2}" y="${y0 + h + 32}" text-anchor="middle" font-size="11">${esc(p.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(${ox + 14},${y0 + h / 2}) rotate(-90)" text-anchor="middle" font-size="11">${esc(p.yLabel)}</text>`,
  );
  // The legend sits on a white box over the plot's top-left corner, drawn after the lines.
  const legend: string[] = [];
  const legendW = 24 + Math.max(...p.series.map((s) => s.label.length)) * 5.6;
  legend.push(
    `<rect x="${x0 + 4}" y="${y0 + 4}" width="${legendW.toFixed(0)}" height="${p.series.length * 14 + 2}" fill="#fff" fill-opacity="0.6"/>`,
  );
  p.series.forEach((s, k) => {
    const pts = s.points.filter((q) => Number.isFinite(q.y) && q.x > 0);
    const dash = s.dashed ? ' stroke-dasharray="5 3"' : '';
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${pts
          .map((q) => `${px(q.x).toFixed(1)},${py(q.y).toFixed(1)}`)
          .join(' ')}"/>`,
      );
    for (const q of pts)
      out.push(`<circle cx="${px(q.x).toFixed(1)}" cy="${py(q.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    const ly = y0 + 12 + k * 14;
    legend.push(
      `<line x1="${x0 + 8}" y1="${ly}" x2="${x0 + 28}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`,
    );
    legend.push(`<text x="${x0 + 32}" y="${ly}" dy="4" font-size="10">${esc(s.label)}</text>`);
  });
  return [...out, ...legend].join('\n');
}

/** Several panels in a grid, with a title line and a note under it. */
export function chartSvg(title: string, note: string, panels: Panel[]): string {
  const rows = Math.ceil(panels.length / COLUMNS);
  const width = PANEL_W * COLUMNS;
  const head = 48;
  const height = head + rows * PANEL_H;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<text x="${width / 2}" y="38" text-anchor="middle" font-size="11" fill="#555">${esc(note)}</text>`,
  ];
  panels.forEach((p, i) => {
    out.push(panelSvg(p, (i % COLUMNS) * PANEL_W, head + Math.floor(i / COLUMNS) * PANEL_H));
  });
  out.push('</svg>', '');
  return out.join('\n');
}

const SYSTEMS = ['floor', 'service'] as const;

/** p50 (solid) and p99 (dashed) lines of each system. */
function latencySeries<L extends { systems: Partial<Record<SystemName, unknown>> }>(
  levels: L[],
  x: (l: L) => number,
  pick: (l: L, s: SystemName) => ScaleLatency | undefined,
): Series[] {
  return SYSTEMS.flatMap((s) => [
    {
      label: `${s} p50`,
      color: COLORS[s],
      points: levels.map((l) => ({ x: x(l), y: pick(l, s)?.p50 ?? Number.NaN })),
    },
    {
      label: `${s} p99`,
      color: COLORS[s],
      dashed: true,
      points: levels.map((l) => ({ x: x(l), y: pick(l, s)?.p99 ?? Number.NaN })),
    },
  ]);
}

/** The scale curve of one run as an SVG document. */
export function scaleChart(r: ScaleResult, when: string): string {
  const bySessions = 'idle sessions open';
  const byClients = 'concurrent clients';
  const perSystem = <L extends { systems: Partial<Record<SystemName, unknown>> }>(
    levels: L[],
    x: (l: L) => number,
    y: (l: L, s: SystemName) => number | undefined,
  ): Series[] =>
    SYSTEMS.map((s) => ({
      label: s,
      color: COLORS[s],
      points: levels.map((l) => ({ x: x(l), y: y(l, s) ?? Number.NaN })),
    }));
  const panels: Panel[] = [
    {
      title: 'Chromium PSS per idle session',
      xLabel: bySessions,
      yLabel: 'MiB per session',
      xTicks: r.sessions,
      series: perSystem(
        r.memory,
        (l) => l.sessions,
        (l, s) => l.systems[s]?.perSessionPssMiB,
      ),
    },
    {
      title: 'Total memory',
      xLabel: bySessions,
      yLabel: 'MiB',
      xTicks: r.sessions,
      series: [
        ...perSystem(
          r.memory,
          (l) => l.sessions,
          (l, s) => {
            const p = l.systems[s];
            return p ? p.totalPssKiB / 1024 : undefined;
          },
        ).map((s) => ({ ...s, label: `${s.label} Chromium PSS` })),
        {
          label: 'service process RSS',
          color: COLORS.service,
          dashed: true,
          points: r.memory.map((l) => ({ x: l.sessions, y: l.systems.service?.driverRssMiB ?? Number.NaN })),
        },
      ],
    },
    {
      title: 'page.text on an idle session',
      xLabel: bySessions,
      yLabel: 'ms',
      xTicks: r.sessions,
      series: latencySeries(
        r.memory,
        (l) => l.sessions,
        (l, s) => l.systems[s]?.text,
      ),
    },
    {
      title: 'Flows/s (create → goto → text → close)',
      xLabel: byClients,
      yLabel: 'flows per second',
      xTicks: r.clients,
      series: perSystem(
        r.flows,
        (l) => l.clients,
        (l, s) => l.systems[s]?.perSec,
      ),
    },
    {
      title: 'In-session loops (goto → text → click)',
      xLabel: byClients,
      yLabel: 'calls per second',
      xTicks: r.clients,
      series: perSystem(
        r.loops,
        (l) => l.clients,
        (l, s) => l.systems[s]?.perSec,
      ),
    },
    {
      title: 'One flow, end to end',
      xLabel: byClients,
      yLabel: 'ms',
      xTicks: r.clients,
      series: latencySeries(
        r.flows,
        (l) => l.clients,
        (l, s) => l.systems[s]?.latency,
      ),
    },
  ];
  return chartSvg(
    'Scale curve: the floor (Playwright in-process) and the service (HTTP /rpc)',
    `npm run bench (scale phase), ${when}; x axes doubling (log 2)`,
    panels,
  );
}
