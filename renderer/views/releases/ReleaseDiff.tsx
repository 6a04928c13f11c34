import { Fragment, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { DIFF_KINDS, type DiffKind, type ReleaseDiff, type ReleaseDiffRow } from '../../../shared/api';
import { ErrorNotice, plural } from '../../components/bits';
import { useOp } from '../../query';
import { diffHref } from './versions';

/**
 * `/releases/diff?a=..&b=..[&kind=moved,changed]`: what changed between two releases. Split moves
 * come first, as the headline (an instance that moved from test to train is a contamination risk
 * for whoever compares scores across versions); then the counts, which filter the list; a table per
 * split; and each instance with its question, a link to it, and its fields before and after.
 */

const KIND_WORDS: Record<DiffKind, string> = { moved: 'moved between splits', added: 'added', removed: 'removed', changed: 'changed' };
const KIND_CLASS: Record<DiffKind, string | undefined> = { moved: 'flag-bad', added: 'flag-ok', removed: 'flag-bad', changed: undefined };

function MovesHeadline({ diff }: { diff: ReleaseDiff }) {
  if (!diff.moved) {
    return (
      <div className="card diff-headline none" data-testid="release-diff-moves">
        No instance moved between splits.
      </div>
    );
  }
  return (
    <div className="card diff-headline" data-testid="release-diff-moves">
      <strong>
        {plural(diff.moved, 'instance')} moved between splits: {diff.moves.map((m) => `${m.count} ${m.from} → ${m.to}`).join(', ')}.
      </strong>
      <div className="small muted">A model trained on one version's train split may have seen the other version's test instances: compare scores across the two only on instances that stayed put.</div>
    </div>
  );
}

function KindFilter({ diff, kinds, onChange }: { diff: ReleaseDiff; kinds: DiffKind[]; onChange: (kinds: DiffKind[]) => void }) {
  return (
    <div className="diff-kinds" data-testid="release-diff-summary">
      {DIFF_KINDS.map((kind) => (
        <button
          key={kind}
          type="button"
          className="button small"
          aria-pressed={kinds.includes(kind)}
          onClick={() => onChange(kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind])}
        >
          <span className={KIND_CLASS[kind]}>
            {diff[kind]} {KIND_WORDS[kind]}
          </span>
        </button>
      ))}
      <span className="muted small" style={{ alignSelf: 'center' }}>
        {diff.unchanged} unchanged{kinds.length ? ' · showing only the kinds pressed' : ''}
      </span>
    </div>
  );
}

function SplitTable({ diff }: { diff: ReleaseDiff }) {
  const columns: [keyof ReleaseDiff['perSplit'][number], string][] = [
    ['before', diff.a.version],
    ['after', diff.b.version],
    ['movedIn', 'moved in'],
    ['movedOut', 'moved out'],
    ['added', 'added'],
    ['removed', 'removed'],
    ['changed', 'changed'],
    ['unchanged', 'unchanged'],
  ];
  return (
    <table className="plain compact numbers" data-testid="release-diff-splits">
      <thead>
        <tr>
          <th>Split</th>
          {columns.map(([key, label]) => (
            <th key={key} className="num">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {diff.perSplit.map((row) => (
          <tr key={row.split}>
            <td>{row.split}</td>
            {columns.map(([key]) => (
              <td key={key} className={`num${(key === 'movedIn' || key === 'movedOut') && row[key] ? ' flag-bad' : ''}`}>
                {row[key]}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Changes({ row }: { row: ReleaseDiffRow }) {
  return (
    <div className="field-change" data-testid="field-changes">
      <span className="muted">field</span>
      <span className="muted">before</span>
      <span className="muted">after</span>
      {row.changes.map((c) => (
        <Fragment key={c.field}>
          <span className="mono">{c.field}</span>
          <span className="before">{c.before ?? '—'}</span>
          <span className="after">{c.after ?? '—'}</span>
        </Fragment>
      ))}
    </div>
  );
}

function DiffRows({ rows }: { rows: ReleaseDiffRow[] }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <table className="plain" data-testid="release-diff">
      <thead>
        <tr>
          <th>Change</th>
          <th>Question</th>
          <th>Split</th>
          <th>Fields that differ</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <Fragment key={row.key}>
            <tr className={row.changes.length ? 'clickable' : undefined} onClick={() => row.changes.length && setOpen(open === row.key ? null : row.key)}>
              <td className={KIND_CLASS[row.change]}>{row.change}</td>
              <td>
                {row.instanceId !== null ? <Link href={`/instances/${row.instanceId}`}>{row.question || row.key}</Link> : row.question || row.key}
                <div className="mono small muted">{row.key}</div>
              </td>
              <td className={row.change === 'moved' ? 'flag-bad' : undefined}>{row.splitA === row.splitB ? row.splitA : `${row.splitA ?? '—'} → ${row.splitB ?? '—'}`}</td>
              <td className="small">
                <span className="mono">{row.fields.join(', ')}</span>
                {row.changes.length ? <button type="button" className="button small ghost">{open === row.key ? 'hide' : 'before / after'}</button> : null}
              </td>
            </tr>
            {open === row.key ? (
              <tr>
                <td colSpan={4}>
                  <Changes row={row} />
                </td>
              </tr>
            ) : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

export function ReleaseDiffView() {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const a = Number(search.get('a'));
  const b = Number(search.get('b'));
  const kinds = (search.get('kind') ?? '').split(',').filter((k): k is DiffKind => (DIFF_KINDS as readonly string[]).includes(k));
  const diff = useOp('release:diff', a > 0 && b > 0 ? { a, b, kinds, limit: 2000 } : null);
  const d = diff.data;
  return (
    <div className="page">
      <div className="page-inner">
        <div className="muted small">
          <Link href="/releases">Releases</Link> / differences
        </div>
        {!(a > 0 && b > 0) ? <div className="notice bad">Choose two releases to compare on the Releases page.</div> : null}
        <ErrorNotice error={diff.error ?? undefined} />
        {d ? (
          <>
            <h1 style={{ margin: 0 }}>
              {d.a.name} {d.a.version} → {d.b.name} {d.b.version}
            </h1>
            <MovesHeadline diff={d} />
            <KindFilter diff={d} kinds={kinds} onChange={(next) => navigate(diffHref(a, b, next), { replace: true })} />
            <SplitTable diff={d} />
            {d.rows.length ? <DiffRows rows={d.rows} /> : <div className="empty">{kinds.length ? 'No instance of the kinds pressed.' : 'The two releases hold the same instances with the same content, in the same splits.'}</div>}
            {d.truncated ? <div className="muted small">Only the first {d.rows.length} differences are listed; press one kind to see more of it.</div> : null}
          </>
        ) : null}
      </div>
    </div>
  );
}
