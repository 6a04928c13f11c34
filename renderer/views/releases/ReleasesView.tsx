import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { ReleaseListRow } from '../../../shared/api';
import { coverageWords } from '../../../shared/release/gate';
import { NotAllowed, useAccess } from '../../access';
import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';
import { CreateDialog } from './CreateDialog';
import { GateVerdict } from './Gate';
import { ReleaseDetailView } from './ReleaseDetail';
import { ReleaseDiffView } from './ReleaseDiff';
import { diffHref, previousVersion } from './versions';
import './releases.css';

/**
 * Releases: the list (`/releases`), the create dialog (`/releases/new`, `?from=ID` for a new
 * version of a release), one release (`/releases/ID`) and the diff between two
 * (`/releases/diff?a=..&b=..`), each screen in its own file.
 */

function ReleaseRows({ rows }: { rows: ReleaseListRow[] }) {
  return (
    <table className="plain" data-testid="releases">
      <thead>
        <tr>
          <th>Release</th>
          <th className="num">Instances</th>
          <th>Splits</th>
          <th>Licence</th>
          <th>Gate</th>
          <th>Created</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>
              <Link href={`/releases/${r.id}`}>
                {r.name} {r.version}
              </Link>
            </td>
            <td className="num">{r.instances.toLocaleString('en-US')}</td>
            <td>{Object.entries(r.counts).map(([s, n]) => `${s} ${n}`).join(' · ')}</td>
            <td>{r.licence}</td>
            <td title={r.gateCoverage ? coverageWords(r.gateCoverage) : 'no campaign linked'}>
              <GateVerdict gate={{ verdict: r.gateVerdict, forced: r.forced }} />
            </td>
            <td className="muted">{r.createdAt.slice(0, 16).replace('T', ' ')}</td>
            <td>
              <Link href={`/releases/new?from=${r.id}`} className="small">
                new version…
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ComparePicker({ rows }: { rows: ReleaseListRow[] }) {
  const [, navigate] = useLocation();
  const [after, setAfter] = useState<number | null>(null);
  const [before, setBefore] = useState<number | null>(null);
  // Before follows After to its previous version until chosen by hand.
  const afterRow = rows.find((r) => r.id === after);
  const shownBefore = before ?? (afterRow ? (previousVersion(rows, afterRow)?.id ?? null) : null);
  const select = (label: string, value: number | null, set: (v: number | null) => void) => (
    <select aria-label={label} className="input" value={value ?? ''} onChange={(e) => set(e.target.value ? Number(e.target.value) : null)}>
      <option value="">{label}…</option>
      {rows.map((r) => (
        <option key={r.id} value={r.id}>
          {r.name} {r.version}
        </option>
      ))}
    </select>
  );
  return (
    <div className="row-gap" data-testid="release-compare">
      <span>Compare</span>
      {select('Before', shownBefore, setBefore)}
      {select('After', after, setAfter)}
      <button type="button" className="button" disabled={shownBefore === null || after === null} onClick={() => navigate(diffHref(shownBefore!, after!))}>
        Show differences
      </button>
    </div>
  );
}

function ReleaseList({ creating, from }: { creating: boolean; from: number | null }) {
  const releases = useOp('release:list', {});
  const [, navigate] = useLocation();
  const rows = releases.data ?? [];
  const mayCreate = useAccess().may('release:create');
  return (
    <div className="page">
      <div className="page-inner">
        <div className="row-gap">
          <h1 style={{ margin: 0 }}>Releases</h1>
          <span className="spacer" style={{ flex: 1 }} />
          {mayCreate.allowed ? (
            <Link href="/releases/new" className="button primary" data-testid="new-release">
              New release…
            </Link>
          ) : (
            <NotAllowed permission={mayCreate} what="make releases" />
          )}
        </div>
        <p className="muted">
          A release is a frozen, versioned snapshot of instances: splits, a dataset card generated from the data, JSONL and Parquet in the Hugging Face layout, checksums, and a gate
          that checks agreement before anything is written. Later edits never change a release; a new version is a new release.
        </p>
        <ErrorNotice error={releases.error ?? undefined} />
        {rows.length ? <ReleaseRows rows={rows} /> : releases.data ? <div className="empty">No releases yet. Make one with “New release…” or `awb release create`.</div> : null}
        {rows.length >= 2 ? <ComparePicker rows={rows} /> : null}
      </div>
      {creating && mayCreate.allowed ? <CreateDialog from={from} onClose={() => navigate('/releases')} onCreated={(id) => navigate(`/releases/${id}`, { replace: true })} /> : null}
    </div>
  );
}

export function ReleasesView({ id }: { id?: string | undefined }) {
  const search = new URLSearchParams(useSearch());
  if (id === 'diff') return <ReleaseDiffView />;
  if (id === 'new') {
    const from = Number(search.get('from'));
    return <ReleaseList creating from={from > 0 ? from : null} />;
  }
  if (id !== undefined && Number(id) > 0) return <ReleaseDetailView id={Number(id)} />;
  return <ReleaseList creating={false} from={null} />;
}
