import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link } from 'wouter';
import { agreementTable, DIGITS, statusTable, validityTable, withCriterionLabels, type ReportTable } from '../../shared/agreement-report';
import { toCsv, toLatex } from '../../shared/tables';
import type { AgreementReport, AgreementRow, CampaignView, Disagreement } from '../../shared/api';
import { scaleValues } from '../../shared/protocols';
import { ErrorNotice, TypeTag } from '../components/bits';
import { saveFile } from '../download';
import { opKey, useOp, useOpMutation } from '../query';
import { OpButton } from '../access';

/**
 * Agreement as the papers report it: YES rates by majority vote per ambiguity type and the "all
 * fields valid" rate (MARCH Table 2, bottom), Fleiss' κ with P̄ and strict and majority agreement
 * per criterion (MARCH Table 8), the same by instance status (MIRAGE Table 3), and the measures
 * that hold up when one answer dominates (Krippendorff's α, Gwet's AC1).
 */

/** Criterion id → the protocol's label, as the judging screen shows it. */
type Labels = Readonly<Record<string, string>>;

const labelOf = (labels: Labels, id: string) => (Object.hasOwn(labels, id) ? labels[id]! : id);

/** A criterion by its label, with its id (what CSV files and the CLI use) on hover. */
function CriterionName({ id, labels }: { id: string; labels: Labels }) {
  return <span title={labelOf(labels, id) === id ? undefined : id}>{labelOf(labels, id)}</span>;
}

/** CSV keeps the criterion ids (stable for scripts, as the CLI writes them); LaTeX, for papers, the labels. */
function Table({ table, labels, caption, file, testId }: { table: ReportTable; labels: Labels; caption: string; file: string; testId: string }) {
  const numeric = (j: number) => table.align[j] === 'r';
  return (
    <section className="card">
      <header className="card-head">
        <h2>{caption}</h2>
        <div className="spacer" />
        <button type="button" className="button small" onClick={() => saveFile(`${file}.csv`, toCsv(table), 'text/csv')}>
          CSV
        </button>
        <button type="button" className="button small" onClick={() => saveFile(`${file}.tex`, toLatex(withCriterionLabels(table, labels), caption), 'application/x-tex')}>
          LaTeX
        </button>
      </header>
      <table className="plain numbers" data-testid={testId}>
        <thead>
          <tr>
            {table.header.map((h, j) => (
              <th key={j} className={numeric(j) ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            <tr key={i}>
              {r.map((cell, j) => (
                <td key={j} className={numeric(j) ? 'num' : undefined} title={cell === '—' ? 'undefined: see the notes below' : undefined}>
                  {j === 0 ? <CriterionName id={cell} labels={labels} /> : cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const FIELD_NAMES: Record<string, string> = {
  fleissKappa: "Fleiss' κ",
  pBar: 'P̄',
  strictAgreement: 'strict agreement',
  krippendorffAlpha: "Krippendorff's α",
  gwetAc1: 'Gwet AC1',
  kappa_ci: 'the κ interval',
};

function UndefinedNotes({ rows, labels }: { rows: AgreementRow[]; labels: Labels }) {
  const notes = rows.flatMap((r) => {
    const byReason = new Map<string, string[]>();
    for (const [field, reason] of Object.entries(r.undefinedReasons)) byReason.set(reason, [...(byReason.get(reason) ?? []), FIELD_NAMES[field] ?? field]);
    return [...byReason].map(([reason, fields]) => `${labelOf(labels, r.criterion)}: ${fields.join(', ')} undefined, because ${reason}.`);
  });
  if (!notes.length) return null;
  return (
    <div className="notice small" data-testid="undefined-notes">
      <strong>— means undefined, not zero.</strong>
      {notes.map((n) => (
        <div key={n}>{n}</div>
      ))}
    </div>
  );
}

function ParadoxNote({ rows, labels }: { rows: AgreementRow[]; labels: Labels }) {
  const flagged = rows.filter((r) => r.prevalenceParadox);
  if (!flagged.length) return null;
  return (
    <div className="notice warn" data-testid="paradox-note">
      <strong>High agreement, low κ: the prevalence paradox.</strong> On {flagged.map((r) => `“${labelOf(labels, r.criterion)}”`).join(', ')} the annotators agree on{' '}
      {flagged.map((r) => `${((r.pBar ?? 0) * 100).toFixed(1)}%`).join(' / ')} of rating pairs, yet κ is{' '}
      {flagged.map((r) => (r.fleissKappa === null ? 'undefined' : r.fleissKappa.toFixed(3))).join(' / ')}. When nearly every rating is the same answer, the
      agreement κ expects by chance is itself close to 1, so κ collapses even though the raters hardly ever differ (MARCH reports κ -0.006 at 98.9% agreement).
      Read Gwet's AC1 ({flagged.map((r) => (r.gwetAc1 === null ? 'undefined' : r.gwetAc1.toFixed(3))).join(' / ')}), which does not assume balanced answers,
      alongside the raw agreement.
    </div>
  );
}

const MEASURE_COLOURS = { "Fleiss' κ": 'var(--chart-1)', "Krippendorff's α": 'var(--chart-2)', 'Gwet AC1': 'var(--chart-3)', 'YES rate': 'var(--chart-4)' } as const;

function CriterionChart({ criterion, rows, labels }: { criterion: string; rows: AgreementRow[]; labels: Labels }) {
  const data = rows
    .filter((r) => r.criterion === criterion)
    .map((r) => ({
      type: r.ambiguityType,
      "Fleiss' κ": r.fleissKappa,
      "Krippendorff's α": r.krippendorffAlpha,
      'Gwet AC1': r.gwetAc1,
      ...(r.yesRate !== null ? { 'YES rate': r.yesRate } : {}),
    }));
  const measures = Object.keys(MEASURE_COLOURS).filter((m) => data.some((d) => m in d)) as (keyof typeof MEASURE_COLOURS)[];
  return (
    <figure className="chart" data-testid="criterion-chart">
      <figcaption>
        <CriterionName id={criterion} labels={labels} />
      </figcaption>
      <ResponsiveContainer width="100%" height={200}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis dataKey="type" tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
          <YAxis domain={[-0.2, 1]} ticks={[-0.2, 0, 0.2, 0.4, 0.6, 0.8, 1]} tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
          <ReferenceLine y={0} stroke="var(--text-3)" />
          <Tooltip formatter={(v) => (typeof v === 'number' ? v.toFixed(3) : 'undefined')} contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 }} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {measures.map((m) => (
            <Bar key={m} dataKey={m} fill={MEASURE_COLOURS[m]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

function PairwiseMatrix({ pairwise, labels }: { pairwise: AgreementReport['pairwise'][number]; labels: Labels }) {
  return (
    <div>
      <div className="small muted">
        <CriterionName id={pairwise.criterion} labels={labels} />: {pairwise.weighted ? "Cohen's κ, quadratic weights" : "Cohen's κ"}
      </div>
      <table className="plain compact numbers">
        <thead>
          <tr>
            <th />
            {pairwise.raters.map((r) => (
              <th key={r} className="num">
                {r}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {pairwise.raters.map((r, a) => (
            <tr key={r}>
              <th>{r}</th>
              {pairwise.kappa[a]!.map((k, b) => (
                <td
                  key={b}
                  className="num heat"
                  style={{ ['--heat' as string]: k === null || a === b ? 0 : Math.max(0, k) }}
                  title={k === null ? 'undefined (no shared items, or no variation)' : undefined}
                >
                  {a === b ? '·' : k === null ? '—' : k.toFixed(DIGITS)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function AgreementPanel({ campaignId, criteria: protocolCriteria }: { campaignId: number; criteria: readonly { id: string; label: string }[] }) {
  const [resamples, setResamples] = useState(1000);
  const labels = useMemo<Labels>(() => Object.fromEntries(protocolCriteria.map((c) => [c.id, c.label])), [protocolCriteria]);
  const report = useOp('agreement:get', { campaignId, resamples });
  const r = report.data;
  const overall = r?.rows.filter((row) => row.ambiguityType === 'all') ?? [];
  const criteria = [...new Set(overall.map((row) => row.criterion))];
  return (
    <div className="stack" data-testid="agreement">
      <ErrorNotice error={report.error} />
      {r ? (
        <>
          <div className="small muted">
            {overall[0]?.items ?? 0} items rated twice or more · {overall[0]?.raters ?? 0} annotators · {r.adjudicated} adjudicated labels (they replace the majority in
            YES rates) · {r.conflicts} open conflicts · κ intervals from{' '}
            <select className="input inline" value={resamples} onChange={(e) => setResamples(Number(e.target.value))} aria-label="Bootstrap resamples">
              {[200, 1000, 5000].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>{' '}
            bootstrap resamples of items (seed {r.bootstrap.seed}) · <span style={{ whiteSpace: 'nowrap' }}>computed in {r.milliseconds} ms</span>
          </div>
          <ParadoxNote rows={overall} labels={labels} />
          <Table table={validityTable(r)} labels={labels} caption="YES rate by majority vote, per ambiguity type" file={`campaign-${campaignId}-validity`} testId="validity-table" />
          <Table table={agreementTable(r)} labels={labels} caption="Agreement per criterion" file={`campaign-${campaignId}-agreement`} testId="agreement-table" />
          <UndefinedNotes rows={overall} labels={labels} />
          {r.statusRows.length ? (
            <Table table={statusTable(r)} labels={labels} caption="By instance status (before vs after filtering)" file={`campaign-${campaignId}-by-status`} testId="status-table" />
          ) : null}
          <section className="card">
            <h2>Per criterion and ambiguity type</h2>
            <div className="charts">
              {criteria.map((c) => (
                <CriterionChart key={c} criterion={c} rows={r.rows} labels={labels} />
              ))}
            </div>
          </section>
          <section className="card">
            <h2>Pairwise agreement</h2>
            <div className="charts">
              {r.pairwise.map((p) => (
                <PairwiseMatrix key={p.criterion} pairwise={p} labels={labels} />
              ))}
            </div>
          </section>
        </>
      ) : report.isFetching ? (
        <div className="muted">Computing…</div>
      ) : null}
    </div>
  );
}

/** An adjudication answers with the new list of disagreements; the agreement numbers change with it. */
function useAdjudicate(campaignId: number) {
  const client = useQueryClient();
  return useOpMutation('agreement:adjudicate', {
    onSuccess: (list) => {
      client.setQueryData(opKey('agreement:disagreements', { campaignId }), list);
      void client.invalidateQueries({ queryKey: ['agreement:get'] });
    },
  });
}

function AdjudicationForm({ campaign, d }: { campaign: CampaignView; d: Disagreement }) {
  const criterion = campaign.protocol.criteria.find((c) => c.id === d.criterion);
  const [value, setValue] = useState(d.adjudication?.value ?? '');
  const [reason, setReason] = useState(d.adjudication?.reason ?? '');
  const [adjudicator, setAdjudicator] = useState(() => localStorage.getItem('awb.adjudicator') ?? '');
  const adjudicate = useAdjudicate(campaign.id);
  if (!criterion) return null;
  return (
    <div className="adjudicate">
      <select className="input" value={value} onChange={(e) => setValue(e.target.value)} aria-label="Final label">
        <option value="">final label…</option>
        {scaleValues(criterion.scale).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
      <input className="input" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="reason" aria-label="Reason" />
      <input className="input narrow-input" value={adjudicator} onChange={(e) => setAdjudicator(e.target.value)} placeholder="adjudicator" aria-label="Adjudicator" />
      <OpButton
        operation="agreement:adjudicate"
        className="button small primary"
        disabled={!value || !reason.trim() || !adjudicator.trim()}
        onClick={() => {
          localStorage.setItem('awb.adjudicator', adjudicator);
          adjudicate.mutate({ campaignId: campaign.id, instanceId: d.instanceId, criterion: d.criterion, value, reason, adjudicator });
        }}
      >
        {d.adjudication ? 'Change' : 'Adjudicate'}
      </OpButton>
      <ErrorNotice error={adjudicate.error} />
    </div>
  );
}

export function DisagreementsPanel({ campaign }: { campaign: CampaignView }) {
  const list = useOp('agreement:disagreements', { campaignId: campaign.id });
  const [open, setOpen] = useState<'open' | 'all'>('open');
  const items = (list.data ?? []).filter((d) => open === 'all' || !d.adjudication);
  const labels = useMemo<Labels>(() => Object.fromEntries(campaign.protocol.criteria.map((c) => [c.id, c.label])), [campaign.protocol.criteria]);
  return (
    <div className="stack">
      <ErrorNotice error={list.error} />
      <div className="row-gap">
        <div className="segmented" role="radiogroup" aria-label="Which disagreements">
          <button type="button" role="radio" aria-checked={open === 'open'} className={open === 'open' ? 'active' : ''} onClick={() => setOpen('open')}>
            To adjudicate
          </button>
          <button type="button" role="radio" aria-checked={open === 'all'} className={open === 'all' ? 'active' : ''} onClick={() => setOpen('all')}>
            All
          </button>
        </div>
        <span className="small muted">
          Items where annotators gave different labels, or where an imported judgment changed an earlier one (marked !). An adjudicated label counts as the item's
          label in the YES rates.
        </span>
      </div>
      {items.length === 0 && list.data ? <div className="empty">No disagreement {open === 'open' ? 'left to adjudicate' : 'in this campaign'}.</div> : null}
      {items.map((d) => (
        <section key={`${d.instanceId}:${d.criterion}`} className="card disagreement" data-testid="disagreement">
          <header className="card-head">
            <TypeTag type={d.ambiguityType} />
            <Link href={`/instances/${d.instanceId}`}>#{d.instanceId}</Link>
            <span className="question-line">{d.question}</span>
            <div className="spacer" />
            <span className="small">
              <CriterionName id={d.criterion} labels={labels} />
            </span>
          </header>
          <div className="votes">
            {d.votes
              .filter((v) => v.value !== null)
              .map((v) => (
                <span key={v.annotator} className={`vote vote-${v.value}`} title={v.comment || undefined}>
                  {v.annotator}: <strong>{v.value}</strong>
                  {v.conflict ? <span className="flag-warn" title="Changed by a later import: a conflict to resolve"> !</span> : null}
                  {v.comment ? ' 💬' : ''}
                </span>
              ))}
          </div>
          {d.adjudication ? (
            <div className="small flag-ok">
              Adjudicated {d.adjudication.value} by {d.adjudication.adjudicator}: {d.adjudication.reason}
            </div>
          ) : null}
          <AdjudicationForm campaign={campaign} d={d} />
        </section>
      ))}
    </div>
  );
}
