import type { BenchResults } from './results';

/**
 * docs/benchmarks/growth.svg: how each sized cost grows from its small size to its large one, on
 * log-log axes, every line starting at (1, 1): size and cost as multiples of the small size's,
 * so a line's slope is its growth exponent b. Grey guides show b = 0, 0.5 and 1. Plain SVG text.
 */

const TIME_UNITS = new Set(['ms', 's', 'min']);
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
const DASHES = ['', '6 3', '2 3'];

export interface GrowthLine {
  label: string;
  exponent: number;
  /** log10 of the size ratio and of the cost ratio. */
  x: number;
  y: number;
  perQuery: boolean;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The growth rows of timed costs whose two figures are both positive. */
export function growthLines(results: BenchResults): GrowthLine[] {
  const lines: GrowthLine[] = [];
  for (const suite of results.suites) {
    const units = new Map(suite.measurements.map((m) => [m.series, m.unit] as const));
    for (const m of suite.measurements) {
      const g = m.growth;
      if (!g || m.value === null || !TIME_UNITS.has(units.get(g.series) ?? '') || g.from.value <= 0 || g.to.value <= 0) continue;
      lines.push({ label: `${suite.suite}: ${g.series}`, exponent: m.value, x: Math.log10(g.to.size / g.from.size), y: Math.log10(g.to.value / g.from.value), perQuery: m.perQuery === true });
    }
  }
  return lines;
}

const fmt = (n: number) => +n.toFixed(1);

/** Spreads label positions (sorted) so no two are closer than `gap`, staying inside [top, bottom]. */
export function spreadLabels(ys: number[], gap: number, top: number, bottom: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  const placed = order.map((o) => o.y);
  for (let k = 0; k < placed.length; k++) placed[k] = Math.max(placed[k]!, k ? placed[k - 1]! + gap : top);
  const overflow = (placed.at(-1) ?? bottom) - bottom;
  if (overflow > 0) for (let k = placed.length - 1; k >= 0; k--) placed[k] = Math.min(placed[k]!, k === placed.length - 1 ? bottom : placed[k + 1]! - gap);
  const out = new Array<number>(ys.length);
  order.forEach((o, k) => (out[o.i] = placed[k]!));
  return out;
}

export function growthSvg(results: BenchResults): string {
  const lines = growthLines(results);
  const margin = { left: 64, right: 330, top: 36, bottom: 48 };
  const plotHeight = Math.max(300, lines.length * 13);
  const plotWidth = 360;
  const width = margin.left + plotWidth + margin.right;
  const height = margin.top + plotHeight + margin.bottom;
  const xMax = Math.max(1, ...lines.map((l) => l.x));
  const yMin = Math.min(-0.5, ...lines.map((l) => l.y)) - 0.1;
  const yMax = Math.max(xMax, ...lines.map((l) => l.y)) + 0.1;
  const px = (x: number) => margin.left + (x / xMax) * plotWidth;
  const py = (y: number) => margin.top + ((yMax - y) / (yMax - yMin)) * plotHeight;
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${margin.left}" y="20" font-size="14" font-weight="bold">How each cost grows: cost and size as multiples of the small size's (slope = b)</text>`);
  for (let d = Math.ceil(yMin); d <= Math.floor(yMax); d++) {
    parts.push(`<line x1="${margin.left}" y1="${fmt(py(d))}" x2="${margin.left + plotWidth}" y2="${fmt(py(d))}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${fmt(py(d) + 4)}" font-size="11" text-anchor="end">×${10 ** d >= 1 ? 10 ** d : (10 ** d).toFixed(-d)}</text>`);
  }
  for (let d = 0; d <= Math.floor(xMax); d++) {
    parts.push(`<line x1="${fmt(px(d))}" y1="${margin.top}" x2="${fmt(px(d))}" y2="${margin.top + plotHeight}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${fmt(px(d))}" y="${margin.top + plotHeight + 16}" font-size="11" text-anchor="middle">×${10 ** d}</text>`);
  }
  parts.push(`<text x="${fmt(margin.left + plotWidth / 2)}" y="${height - 10}" font-size="12" text-anchor="middle">data size (multiple of the small size)</text>`);
  parts.push(`<text x="14" y="${fmt(margin.top + plotHeight / 2)}" font-size="12" text-anchor="middle" transform="rotate(-90 14 ${fmt(margin.top + plotHeight / 2)})">cost (multiple)</text>`);
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999999"/>`);
  // yMax is at least xMax, so every guide ends on the right edge.
  for (const b of [0, 0.5, 1]) {
    parts.push(`<line x1="${px(0)}" y1="${fmt(py(0))}" x2="${fmt(px(xMax))}" y2="${fmt(py(b * xMax))}" stroke="#bbbbbb" stroke-dasharray="4 4"/>`);
    parts.push(`<text x="${fmt(px(xMax) - 4)}" y="${fmt(py(b * xMax) - 4)}" font-size="10" fill="#888888" text-anchor="end">b = ${b}</text>`);
  }
  const labelYs = spreadLabels(lines.map((l) => py(l.y)), 13, margin.top + 4, margin.top + plotHeight);
  lines.forEach((line, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const dash = DASHES[Math.floor(i / COLOURS.length) % DASHES.length]!;
    const [x1, y1, x2, y2] = [px(0), py(0), px(line.x), py(line.y)].map(fmt);
    parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${colour}" stroke-width="1.5"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`);
    parts.push(`<circle cx="${x2}" cy="${y2}" r="2.5" fill="${colour}"/>`);
    const ly = fmt(labelYs[i]!);
    parts.push(`<line x1="${x2}" y1="${y2}" x2="${margin.left + plotWidth + 8}" y2="${ly}" stroke="${colour}" stroke-opacity="0.35"/>`);
    const flag = line.perQuery && line.exponent > 0.5 ? ' (per query, grows)' : line.perQuery ? ' (per query)' : '';
    parts.push(`<text x="${margin.left + plotWidth + 12}" y="${fmt(labelYs[i]! + 4)}" font-size="11" fill="${colour}">${escapeXml(`${line.label}: b = ${line.exponent.toFixed(2)}${flag}`)}</text>`);
  });
  if (!lines.length) parts.push(`<text x="${fmt(px(xMax / 2))}" y="${fmt(py((yMax + yMin) / 2))}" font-size="12" text-anchor="middle">no sized costs in this run</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<title>${escapeXml(`Growth of each sized cost, run of ${results.date}`)}</title>`,
    ...parts.map((p) => `  ${p}`),
    '</svg>',
    '',
  ].join('\n');
}
