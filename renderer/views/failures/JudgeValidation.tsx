import { useState } from 'react';
import { Link } from 'wouter';
import type { JudgeValidationReport } from '../../../shared/api';
import type { Correlation } from '../../../shared/eval/paired';
import { NotAllowed, useAccess } from '../../access';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';

/**
 * Judge validation: send a sample of the run's answers to people (a campaign with the 0-5
 * long-answer quality protocol), then compare the LLM judge with their ratings per criterion.
 */

function Figure({ c }: { c: Correlation }) {
  if (c.value === null) return <span className="muted">–</span>;
  return (
    <span title={`${c.interval}, n = ${c.n}`}>
      {c.value.toFixed(3)}
      {c.ci ? <span className="muted small"> [{c.ci.low.toFixed(2)}, {c.ci.high.toFixed(2)}]</span> : null}
    </span>
  );
}

export function ValidationTable({ report }: { report: JudgeValidationReport }) {
  return (
    <>
      <div className="small muted">
        {report.items} items in campaign “{report.campaign.name}”, {report.rated} rated by {report.annotators} {report.annotators === 1 ? 'person' : 'people'}, {report.judged} scored by the judge. 95% intervals: Fisher z
        for Pearson, percentile bootstrap ({report.bootstrap.resamples} resamples) for the others.
      </div>
      <table className="plain" data-testid="judge-validation">
        <thead>
          <tr>
            <th>Criterion</th>
            <th className="num">n</th>
            <th className="num">Pearson r</th>
            <th className="num">Spearman ρ</th>
            <th className="num">Kendall τ-b</th>
            <th className="num">QWK</th>
            <th className="num">Judge mean</th>
            <th className="num">People mean</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r) => (
            <tr key={r.criterion}>
              <td>{r.criterion}</td>
              <td className="num">{r.n}</td>
              <td className="num">
                <Figure c={r.pearson} />
              </td>
              <td className="num">
                <Figure c={r.spearman} />
              </td>
              <td className="num">
                <Figure c={r.kendallTauB} />
              </td>
              <td className="num">
                <Figure c={r.quadraticWeightedKappa} />
              </td>
              <td className="num">{r.meanJudge?.toFixed(2) ?? '–'}</td>
              <td className="num">{r.meanHuman?.toFixed(2) ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.notes.map((n) => (
        <div key={n} className="small muted">
          {n}
        </div>
      ))}
    </>
  );
}

export function JudgeValidationPanel({ run }: { run: number }) {
  const campaigns = useOp('campaign:list', {});
  const [campaign, setCampaign] = useState<number | null>(null);
  const report = useOp('judge-validation:get', campaign ? { run, campaign } : null);
  const start = useOpMutation('judge-validation:start', { onSuccess: (view) => setCampaign(view.id) });
  const mayStart = useAccess().may('judge-validation:start');
  const [annotators, setAnnotators] = useState('');
  const [size, setSize] = useState('50');
  const quality = (campaigns.data ?? []).filter((c) => /quality/i.test(c.protocol));
  return (
    <section className="card" data-testid="judge-validation-panel">
      <div className="card-head">
        <h2>Judge validation</h2>
        <span className="spacer" />
        <select className="input" aria-label="campaign" value={campaign ?? ''} onChange={(e) => setCampaign(e.target.value ? Number(e.target.value) : null)}>
          <option value="">compare with campaign…</option>
          {quality.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.done}/{c.total})
            </option>
          ))}
        </select>
      </div>
      <form
        className="row-gap small"
        onSubmit={(e) => {
          e.preventDefault();
          const names = annotators.split(',').map((a) => a.trim()).filter(Boolean);
          start.mutate({ run, name: `Judge validation of run ${run}`, annotators: names, size: Number(size) });
        }}
      >
        <span>Rate a sample of this run’s answers:</span>
        <input className="input" aria-label="annotators" placeholder="annotators, comma-separated" value={annotators} onChange={(e) => setAnnotators(e.target.value)} />
        <input className="input threshold" aria-label="sample size" value={size} onChange={(e) => setSize(e.target.value)} />
        <button type="submit" className="button small" disabled={!annotators.trim() || start.isPending || !mayStart.allowed} title={mayStart.reason}>
          Create campaign
        </button>
        <NotAllowed permission={mayStart} />
        {start.data ? <Link href={`/campaigns/${start.data.id}`}>open campaign {start.data.id}</Link> : null}
      </form>
      <ErrorNotice error={start.error} />
      {campaign ? <ErrorNotice error={report.error} /> : null}
      {report.data && campaign ? <ValidationTable report={report.data} /> : null}
    </section>
  );
}
