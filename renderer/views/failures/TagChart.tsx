import { useMemo, useState } from 'react';
import type { TagCountRow } from '../../../shared/api';
import { ErrorNotice } from '../../components/bits';
import { saveFile } from '../../download';
import { useOp } from '../../query';

/** Counts of current failure tags per tag, split by ambiguity type or by method, as horizontal stacked bars. */

const TYPE_COLOURS: Record<string, string> = {
  semantic: 'var(--type-semantic)',
  syntactic: 'var(--type-syntactic)',
  constraint: 'var(--type-constraint)',
  unspecified: 'var(--type-unspecified)',
};
const PALETTE = ['var(--interpretation-1)', 'var(--interpretation-2)', 'var(--interpretation-3)', 'var(--interpretation-4)', 'var(--interpretation-5)', 'var(--interpretation-6)'];

export function tagCountsCsv(rows: readonly TagCountRow[]): string {
  const field = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return ['tag,run,method,model,ambiguity_type,count', ...rows.map((r) => [r.tag, String(r.runId), r.method, r.model, r.ambiguityType, String(r.n)].map(field).join(','))].join('\n') + '\n';
}

export function TagChart({ runs }: { runs: number[] }) {
  const counts = useOp('failure-tag:counts', { runs });
  const [by, setBy] = useState<'type' | 'method'>('type');
  const { tags, groups, max } = useMemo(() => {
    const rows = counts.data ?? [];
    const groupOf = (r: TagCountRow) => (by === 'type' ? r.ambiguityType : `${r.method} × ${r.model}`);
    const groups = [...new Set(rows.map(groupOf))].sort();
    const tags = new Map<string, { label: string; total: number; parts: Map<string, number> }>();
    for (const r of rows) {
      const t = tags.get(r.tag) ?? { label: r.label, total: 0, parts: new Map<string, number>() };
      t.total += r.n;
      t.parts.set(groupOf(r), (t.parts.get(groupOf(r)) ?? 0) + r.n);
      tags.set(r.tag, t);
    }
    return { tags: [...tags.entries()].sort((a, b) => b[1].total - a[1].total), groups, max: Math.max(1, ...[...tags.values()].map((t) => t.total)) };
  }, [counts.data, by]);
  const colour = (g: string, i: number) => (by === 'type' ? (TYPE_COLOURS[g] ?? PALETTE[i % PALETTE.length]!) : PALETTE[i % PALETTE.length]!);
  return (
    <section className="card tag-chart" data-testid="tag-chart">
      <div className="card-head">
        <h2>Failure tags</h2>
        <span className="spacer" />
        <select className="input" aria-label="split by" value={by} onChange={(e) => setBy(e.target.value as 'type' | 'method')}>
          <option value="type">by type</option>
          <option value="method">by method</option>
        </select>
        <button type="button" className="button small" disabled={!counts.data?.length} onClick={() => saveFile(`failure-tags-${runs.join('-') || 'all'}.csv`, tagCountsCsv(counts.data ?? []), 'text/csv')}>
          CSV
        </button>
      </div>
      <ErrorNotice error={counts.error} />
      {tags.length === 0 ? <div className="muted small">No tags yet.</div> : null}
      {tags.map(([key, t]) => (
        <div key={key} className="bar-row" title={`${t.label}: ${t.total}`}>
          <span className="bar-label small">{t.label}</span>
          <span className="bar-track">
            {groups.map((g, i) =>
              t.parts.get(g) ? <span key={g} className="bar-part" style={{ width: `${(100 * t.parts.get(g)!) / max}%`, background: colour(g, i) }} title={`${g}: ${t.parts.get(g)}`} /> : null,
            )}
          </span>
          <span className="bar-value small">{t.total}</span>
        </div>
      ))}
      {tags.length ? (
        <div className="legend small">
          {groups.map((g, i) => (
            <span key={g}>
              <span className="swatch" style={{ background: colour(g, i) }} /> {g}
            </span>
          ))}
        </div>
      ) : null}
    </section>
  );
}
