import { Link } from 'wouter';
import type { AskFirstRun } from '../../../shared/api';
import { ASK_ACTIONS } from '../../../shared/eval/methods/ask-first';
import { NotAllowed, useAccess } from '../../access';
import { ErrorNotice } from '../../components/bits';
import { JobCard, useJobCards } from '../../components/JobCard';
import { useOp } from '../../query';
import { StartAskFirstForm } from './StartAskFirstForm';

/**
 * Ask-first runs (URASys's ask-before-answer setting, Table 2): the runs with their accuracy per
 * answerability label (`/ask-first`), and one run's table, label × action counts and items
 * (`/ask-first/:run`). Runs start from the form here, the CLI (`awb ask-first run`) or the API.
 */

const LABELS = ['answerable', 'unanswerable', 'ambiguous'] as const;
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

function RunList({ runs }: { runs: AskFirstRun[] }) {
  if (!runs.length) return <p className="muted">No ask-first runs yet: start one here, or with awb ask-first run --dataset NAME --config FILE.</p>;
  return (
    <div style={{ overflowX: 'auto' }}>
      <table className="plain numbers" data-testid="ask-first-runs">
        <thead>
          <tr>
            <th>Run</th>
            <th>Dataset</th>
            <th>Model</th>
            <th className="num">items</th>
            <th className="num">overall</th>
            {LABELS.map((l) => (
              <th key={l} className="num">
                {l}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <Link href={`/ask-first/${r.id}`}>#{r.id}</Link>
              </td>
              <td>{r.dataset}</td>
              <td>{r.model}</td>
              <td className="num">{r.total}</td>
              <td className="num">{pct(r.table.overall.accuracy)}</td>
              {LABELS.map((l) => (
                <td key={l} className="num">
                  {pct(r.table.byLabel[l].accuracy)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunDetail({ id }: { id: number }) {
  const run = useOp('ask-first:get', { id });
  const r = run.data;
  return (
    <>
      <ErrorNotice error={run.error} />
      {r ? (
        <>
          <section className="card">
            <h2>
              Run #{r.id} on “{r.dataset}” · {r.model} · {r.corpus ? `searching ${r.corpus}` : 'own paragraphs'} · {r.done}/{r.total} done, {r.failed} failed · ${r.costUsd.toFixed(4)}
            </h2>
            <table className="plain numbers" data-testid="ask-first-table">
              <thead>
                <tr>
                  <th>Gold label</th>
                  <th className="num">items</th>
                  <th className="num">correct</th>
                  <th className="num">accuracy</th>
                  {ASK_ACTIONS.map((a) => (
                    <th key={a} className="num">
                      {a.replace('_', ' ')}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {LABELS.map((l) => (
                  <tr key={l}>
                    <td>{l}</td>
                    <td className="num">{r.table.byLabel[l].n}</td>
                    <td className="num">{r.table.byLabel[l].correct}</td>
                    <td className="num">{pct(r.table.byLabel[l].accuracy)}</td>
                    {ASK_ACTIONS.map((a) => (
                      <td key={a} className="num">
                        {r.table.confusion[l][a]}
                      </td>
                    ))}
                  </tr>
                ))}
                <tr>
                  <td>overall</td>
                  <td className="num">{r.table.overall.n}</td>
                  <td className="num">{r.table.overall.correct}</td>
                  <td className="num">{pct(r.table.overall.accuracy)}</td>
                  <td colSpan={3} className="muted">
                    ambiguous, right after the reply: {r.table.ambiguousStrict.correct}/{r.table.ambiguousStrict.n} ({pct(r.table.ambiguousStrict.accuracy)})
                  </td>
                </tr>
              </tbody>
            </table>
            {r.notes.map((n) => (
              <p key={n} className="muted">
                {n}
              </p>
            ))}
          </section>
          <section className="card">
            <table className="plain">
              <thead>
                <tr>
                  <th>Question</th>
                  <th>Gold</th>
                  <th>Action</th>
                  <th>Said</th>
                  <th>Right</th>
                </tr>
              </thead>
              <tbody>
                {r.items.map((i) => (
                  <tr key={i.position}>
                    <td>{i.question}</td>
                    <td>{i.label}</td>
                    <td>{i.action ?? (i.error ? 'failed' : 'pending')}</td>
                    <td>{i.error ?? (i.action === 'clarify' ? i.clarifyingQuestion + (i.afterReply !== null ? ` → ${i.afterReply}` : '') : i.answer)}</td>
                    <td>{i.correct === null ? '–' : i.correct ? '✓' : '✗'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      ) : null}
    </>
  );
}

/** The form (or why this role may not start a run) beside the running job and the newest finished one, then the runs. */
function RunsPage({ runs }: { runs: AskFirstRun[] }) {
  const { cards, dismiss } = useJobCards('ask-first', 'awb.ask-first.dismissed-job');
  const mayStart = useAccess().may('ask-first:start');
  return (
    <>
      <div className="grid-2">
        {mayStart.allowed ? (
          <StartAskFirstForm running={cards.some((j) => j.state === 'running')} />
        ) : (
          <section className="card">
            <h2>Start a run</h2>
            <NotAllowed permission={mayStart} what="start ask-first runs" />
          </section>
        )}
        <div className="stack">
          {cards.map((j) => (
            <JobCard key={j.id} job={j} testId="ask-first-job" onDismiss={j.state === 'running' ? undefined : () => dismiss(j.id)}>
              {j.kind === 'ask-first' && j.result ? <Link href={`/ask-first/${j.result.id}`}>Open run #{j.result.id}</Link> : null}
            </JobCard>
          ))}
          <section className="card small">
            <h2>How a run is scored</h2>
            <p>
              The model reads each labelled question with its evidence and answers, asks a clarifying question, or says there is no answer. It is right on an <strong>answerable</strong> question when
              its answer matches the gold (token F1 ≥ 0.5), on an <strong>unanswerable</strong> one when it says there is no answer, and on an <strong>ambiguous</strong> one when it asks.
            </p>
          </section>
        </div>
      </div>
      <section className="card">
        <h2>Runs</h2>
        <RunList runs={runs} />
      </section>
    </>
  );
}

export function AskFirstView({ run }: { run: number | null }) {
  const runs = useOp('ask-first:list', {});
  return (
    <div className="page">
      <div className="page-inner stack">
        <h1>Ask first</h1>
        <ErrorNotice error={runs.error} />
        {run === null ? <RunsPage runs={runs.data ?? []} /> : <RunDetail id={run} />}
      </div>
    </div>
  );
}
