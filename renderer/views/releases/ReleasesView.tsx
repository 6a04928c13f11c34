import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { GateResult, Input } from '../../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../../shared/domain';
import { parseSplitSpec } from '../../../shared/release/splits';
import { call, isDesktop } from '../../api';
import { ErrorNotice, plural } from '../../components/bits';
import { useJobs, useOp } from '../../query';
import { JobLine } from '../ImportView';
import { Markdown } from './Markdown';

/**
 * Releases: the list, a create dialog with live counts, the gate's checks and the card as it will
 * be published, one release with its files, and the diff between two versions.
 */

const cardBox = { maxHeight: 520, overflow: 'auto', border: '1px solid var(--border)', borderRadius: 8, padding: '4px 16px', background: 'var(--surface)' } as const;

function GateTable({ gate, testId }: { gate: GateResult; testId: string }) {
  if (!gate.checks.length) return <p className="muted small">No thresholds set: the gate has nothing to check.</p>;
  return (
    <table className="plain compact numbers" data-testid={testId}>
      <thead>
        <tr>
          <th>Check</th>
          <th className="num">Threshold</th>
          <th className="num">Measured</th>
          <th>Result</th>
        </tr>
      </thead>
      <tbody>
        {gate.checks.map((c) => (
          <tr key={c.name}>
            <td>{c.name}</td>
            <td className="num">{c.name === 'unresolved disagreements' ? '= 0' : `≥ ${c.threshold}`}</td>
            <td className="num">{c.value === null ? '—' : c.value}</td>
            <td className={c.passed ? 'flag-ok' : 'flag-bad'}>{c.passed ? 'pass' : 'fail'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A dialog wide enough for the form and the card side by side (Escape or a click outside closes it). */
function WideDialog({ onClose, label, children }: { onClose: () => void; label: string; children: ReactNode }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      onClose();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  return (
    <div className="overlay" style={{ paddingTop: '4vh' }} onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-label={label} style={{ width: 'min(1360px, 96vw)' }}>
        {children}
      </div>
    </div>
  );
}

function numberOrNull(text: string): number | null {
  if (!text.trim()) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

function CreateDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (id: number) => void }) {
  const datasets = useOp('dataset:list', {});
  const campaigns = useOp('campaign:list', {});
  const info = useOp('app:info', {});
  const jobs = useJobs();
  const [name, setName] = useState('');
  const [version, setVersion] = useState('1.0.0');
  const [chosen, setChosen] = useState<string[]>([]);
  const [types, setTypes] = useState<string[]>([]);
  const [statuses, setStatuses] = useState<string[]>(['ready']);
  const [campaign, setCampaign] = useState<number | null>(null);
  const [onlyValid, setOnlyValid] = useState(false);
  const [splitMode, setSplitMode] = useState<'fractions' | 'source'>('fractions');
  const [splitText, setSplitText] = useState('train=0.8,test=0.2');
  const [seed, setSeed] = useState('1');
  const [minKappa, setMinKappa] = useState('');
  const [minAc1, setMinAc1] = useState('');
  const [minYes, setMinYes] = useState('');
  const [minJudgments, setMinJudgments] = useState('');
  const [noUnresolved, setNoUnresolved] = useState(false);
  const [licence, setLicence] = useState('');
  const [description, setDescription] = useState('');
  const [out, setOut] = useState('');
  const [force, setForce] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const job = jobs.find((j) => j.id === jobId);

  useEffect(() => {
    if (!out && info.data) setOut(info.data.databasePath.replace(/[^/\\]+$/, `release-${(name || 'dataset').replace(/[^A-Za-z0-9._-]+/g, '-')}-${version}`));
  }, [info.data, out, name, version]);

  let splitError: string | null = null;
  let fractions: Record<string, number> = {};
  try {
    fractions = parseSplitSpec(splitText);
  } catch (e) {
    splitError = (e as Error).message;
  }
  // A new object each render is fine: the query key is the input's content, not its identity.
  const draft: Input<'release:preview'> | null =
    !name.trim() || splitError
      ? null
      : {
          name: name.trim(),
          version,
          selection: { datasets: chosen, types: types as never, statuses: statuses as never, campaignId: campaign, onlyValid: campaign !== null && onlyValid },
          split: splitMode === 'source' ? { mode: 'source' } : { mode: 'fractions', fractions, seed: Number(seed) || 0 },
          gate: { minKappa: numberOrNull(minKappa), minAc1: numberOrNull(minAc1), minYesRate: numberOrNull(minYes), minJudgments: numberOrNull(minJudgments), noUnresolved },
          licence: licence.trim() || null,
          description,
        };
  const preview = useOp('release:preview', draft);
  const p = preview.data;
  const result = job?.kind === 'release' && job.state === 'done' ? job.result : null;
  useEffect(() => {
    if (result?.id) onCreated(result.id);
  }, [result, onCreated]);

  const publish = async () => {
    if (!draft) return;
    setError(undefined);
    try {
      setJobId((await call('release:create', { ...draft, out, force: force.trim() || null })).jobId);
    } catch (e) {
      setError(e as Error);
    }
  };
  const toggle = (list: string[], set: (v: string[]) => void, value: string, on: boolean) => set(on ? [...list, value] : list.filter((v) => v !== value));
  const blocked = !p || p.problems.length > 0 || ((!p.gate.passed || !p.licence.compatible) && !force.trim());

  return (
    <WideDialog onClose={onClose} label="New release">
      <div style={{ display: 'grid', gridTemplateColumns: 'minmax(360px, 440px) minmax(420px, 1fr)', gap: 24, maxHeight: '88vh', overflow: 'auto', padding: 16 }} data-testid="release-dialog">
        <div className="form" style={{ alignContent: 'start' }}>
          <h2 style={{ gridColumn: '1 / -1', margin: 0 }}>New release</h2>
          <label htmlFor="release-name">Name</label>
          <input id="release-name" className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="MARCH" />
          <label htmlFor="release-version">Version</label>
          <input id="release-version" className="input" value={version} onChange={(e) => setVersion(e.target.value)} />
          <span>Datasets</span>
          <div>
            {(datasets.data ?? []).map((d) => (
              <label key={d.id} className="check">
                <input type="checkbox" checked={chosen.includes(d.name)} onChange={(e) => toggle(chosen, setChosen, d.name, e.target.checked)} />
                {d.name} <span className="muted small">({plural(d.instances, 'instance')})</span>
              </label>
            ))}
            <div className="muted small">{chosen.length ? '' : 'None ticked: every dataset.'}</div>
          </div>
          <span>Types</span>
          <div className="row-gap">
            {AMBIGUITY_TYPES.map((t) => (
              <label key={t} className="check">
                <input type="checkbox" checked={types.includes(t)} onChange={(e) => toggle(types, setTypes, t, e.target.checked)} />
                {t}
              </label>
            ))}
          </div>
          <span>Statuses</span>
          <div className="row-gap">
            {INSTANCE_STATUSES.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" checked={statuses.includes(s)} onChange={(e) => toggle(statuses, setStatuses, s, e.target.checked)} />
                {s}
              </label>
            ))}
          </div>
          <label htmlFor="release-campaign">Validation</label>
          <div>
            <select id="release-campaign" className="input" style={{ maxWidth: '100%' }} value={campaign ?? ''} onChange={(e) => setCampaign(e.target.value ? Number(e.target.value) : null)}>
              <option value="">No campaign</option>
              {(campaigns.data ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  #{c.id} {c.name} ({c.protocol})
                </option>
              ))}
            </select>
            {campaign !== null ? (
              <label className="check">
                <input type="checkbox" checked={onlyValid} onChange={(e) => setOnlyValid(e.target.checked)} /> only instances with a positive verdict
              </label>
            ) : null}
          </div>
          <span>Splits</span>
          <div>
            <div className="row-gap">
              <label className="check">
                <input type="radio" checked={splitMode === 'fractions'} onChange={() => setSplitMode('fractions')} /> fractions
              </label>
              <label className="check">
                <input type="radio" checked={splitMode === 'source'} onChange={() => setSplitMode('source')} /> the source's own split
              </label>
            </div>
            {splitMode === 'fractions' ? (
              <div className="row-gap">
                <input aria-label="Split fractions" className="input" value={splitText} onChange={(e) => setSplitText(e.target.value)} style={{ flex: 1 }} />
                <input aria-label="Seed" className="input" value={seed} onChange={(e) => setSeed(e.target.value)} style={{ width: 70 }} title="seed" />
              </div>
            ) : null}
            {splitError ? <div className="flag-bad small">{splitError}</div> : <div className="muted small">Stratified by ambiguity type; the seed fixes the draw.</div>}
          </div>
          <span>Gate</span>
          <div style={{ display: 'grid', gridTemplateColumns: 'auto 80px', gap: '4px 8px', alignItems: 'center' }}>
            <label htmlFor="gate-kappa">min Fleiss' κ</label>
            <input id="gate-kappa" className="input" value={minKappa} onChange={(e) => setMinKappa(e.target.value)} />
            <label htmlFor="gate-ac1">min Gwet's AC1</label>
            <input id="gate-ac1" className="input" value={minAc1} onChange={(e) => setMinAc1(e.target.value)} />
            <label htmlFor="gate-yes">min YES rate</label>
            <input id="gate-yes" className="input" value={minYes} onChange={(e) => setMinYes(e.target.value)} />
            <label htmlFor="gate-judgments">min judgments / instance</label>
            <input id="gate-judgments" className="input" value={minJudgments} onChange={(e) => setMinJudgments(e.target.value)} />
            <label className="check" style={{ gridColumn: '1 / -1' }}>
              <input type="checkbox" checked={noUnresolved} onChange={(e) => setNoUnresolved(e.target.checked)} /> no unresolved disagreements
            </label>
          </div>
          <label htmlFor="release-licence">Licence</label>
          <input id="release-licence" className="input" value={licence} onChange={(e) => setLicence(e.target.value)} placeholder={p ? `${p.licence.licence} (from the sources)` : 'SPDX id'} />
          <label htmlFor="release-description">Description</label>
          <textarea id="release-description" className="input" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
          <label htmlFor="release-out">Write to</label>
          <input id="release-out" className="input" value={out} onChange={(e) => setOut(e.target.value)} />
          <label htmlFor="release-force">Force</label>
          <input id="release-force" className="input" value={force} onChange={(e) => setForce(e.target.value)} placeholder="a reason, to publish over a failed check" />
          <span />
          <div className="row-gap">
            <button type="button" className="button primary" disabled={blocked || !out || job?.state === 'running'} onClick={() => void publish()} data-testid="release-publish">
              Publish {name ? `${name} ${version}` : ''}
            </button>
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
          </div>
          <div style={{ gridColumn: '1 / -1' }}>
            <ErrorNotice error={error} />
            {job ? <JobLine job={job} /> : null}
            <ErrorNotice error={job?.error} />
            {result && result.id === null ? <div className="notice bad">The gate refused the release; nothing was written.</div> : null}
          </div>
        </div>
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12, minWidth: 0 }}>
          {!draft ? <p className="muted">Name the release to see its counts, gate and card.</p> : null}
          <ErrorNotice error={preview.error ?? undefined} />
          {p ? (
            <>
              <div className="card" data-testid="release-counts">
                <div className="card-head">
                  <strong>{plural(p.total, 'instance')}</strong>
                  <span className="muted">{Object.entries(p.counts).map(([s, n]) => `${s} ${n}`).join(' · ')}</span>
                </div>
                <div className="muted small">{Object.entries(p.perType).map(([t, n]) => `${t} ${n}`).join(' · ')}</div>
                {p.problems.map((problem) => (
                  <div key={problem} className="notice bad">
                    {problem}
                  </div>
                ))}
                <div className={p.licence.compatible ? 'muted small' : 'notice bad'}>
                  Licence {p.licence.licence}
                  {p.licence.shareAlike ? ' (share-alike)' : ''}. {p.licence.problems.join(' ')}
                </div>
              </div>
              <div>
                <h3 style={{ margin: '0 0 6px' }}>Gate {p.gate.checks.length ? (p.gate.passed ? '· passes' : '· refuses') : ''}</h3>
                <GateTable gate={p.gate} testId="release-gate" />
              </div>
              <div style={cardBox}>
                <Markdown text={p.card} />
              </div>
            </>
          ) : null}
        </div>
      </div>
    </WideDialog>
  );
}

function ReleaseList() {
  const releases = useOp('release:list', {});
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const [a, setA] = useState<number | null>(null);
  const [b, setB] = useState<number | null>(null);
  const rows = releases.data ?? [];
  return (
    <div className="page">
      <div className="page-inner">
        <div className="row-gap">
          <h1 style={{ margin: 0 }}>Releases</h1>
          <span className="spacer" style={{ flex: 1 }} />
          <button type="button" className="button primary" onClick={() => setCreating(true)} data-testid="new-release">
            New release…
          </button>
        </div>
        <p className="muted">
          A release is a frozen, versioned snapshot of instances: splits, a dataset card generated from the data, JSONL and Parquet in the Hugging Face layout, checksums, and a gate
          that checks agreement before anything is written. Later edits never change a release; a new version is a new release.
        </p>
        <ErrorNotice error={releases.error ?? undefined} />
        {rows.length ? (
          <table className="plain" data-testid="releases">
            <thead>
              <tr>
                <th>Release</th>
                <th className="num">Instances</th>
                <th>Splits</th>
                <th>Licence</th>
                <th>Gate</th>
                <th>Created</th>
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
                  <td className={r.forced ? 'flag-bad' : 'flag-ok'} title={r.forced ?? undefined}>
                    {r.forced ? 'forced' : r.gatePassed ? 'passed' : '—'}
                  </td>
                  <td className="muted">{r.createdAt.slice(0, 16).replace('T', ' ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : releases.data ? (
          <div className="empty">No releases yet. Make one with “New release…” or `awb release create`.</div>
        ) : null}
        {rows.length >= 2 ? (
          <div className="row-gap" data-testid="release-compare">
            <span>Compare</span>
            {[
              [a, setA, 'Before'],
              [b, setB, 'After'],
            ].map(([value, set, label]) => (
              <select key={label as string} aria-label={label as string} className="input" value={(value as number | null) ?? ''} onChange={(e) => (set as (v: number | null) => void)(e.target.value ? Number(e.target.value) : null)}>
                <option value="">{label as string}…</option>
                {rows.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name} {r.version}
                  </option>
                ))}
              </select>
            ))}
            <button type="button" className="button" disabled={a === null || b === null} onClick={() => navigate(`/releases/diff?a=${a}&b=${b}`)}>
              Show differences
            </button>
          </div>
        ) : null}
      </div>
      {creating ? <CreateDialog onClose={() => setCreating(false)} onCreated={(id) => (setCreating(false), navigate(`/releases/${id}`))} /> : null}
    </div>
  );
}

function download(fileName: string, base64: string): void {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/zip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function ReleaseDetailView({ id }: { id: number }) {
  const release = useOp('release:get', { id });
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const r = release.data;
  const zip = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const z = await call('release:zip', { id });
      download(z.fileName, z.base64);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="page">
      <div className="page-inner">
        <div className="muted small">
          <Link href="/releases">Releases</Link> /
        </div>
        <ErrorNotice error={release.error ?? error} />
        {r ? (
          <>
            <h1 style={{ margin: 0 }} data-testid="release-title">
              {r.name} {r.version}
            </h1>
            <div className="card">
              <dl className="kv">
                <dt>Instances</dt>
                <dd>
                  {r.instances.toLocaleString('en-US')} ({Object.entries(r.counts).map(([s, n]) => `${s} ${n}`).join(', ')})
                </dd>
                <dt>Licence</dt>
                <dd>{r.licence}</dd>
                <dt>Gate</dt>
                <dd className={r.forced ? 'flag-bad' : undefined}>{r.forced ? `forced: ${r.forced}` : r.gatePassed ? 'passed' : 'no thresholds'}</dd>
                <dt>Folder</dt>
                <dd className="mono">{r.dir}</dd>
                <dt>Built with</dt>
                <dd>
                  Ambiguity Workbench {r.appVersion}, schema {r.schemaVersion}, on {r.createdAt.slice(0, 10)}
                </dd>
              </dl>
              <div className="row-gap">
                {isDesktop ? (
                  <>
                    <button type="button" className="button" onClick={() => void window.awb?.showFolder(r.dir)}>
                      Open folder
                    </button>
                    <button type="button" className="button" onClick={() => void navigator.clipboard?.writeText(r.dir)}>
                      Copy folder path
                    </button>
                  </>
                ) : (
                  <button type="button" className="button" disabled={busy} onClick={() => void zip()} data-testid="release-zip">
                    {busy ? 'Zipping…' : 'Download as zip'}
                  </button>
                )}
              </div>
            </div>
            <GateTable gate={r.gate} testId="release-detail-gate" />
            <table className="plain compact" data-testid="release-files">
              <thead>
                <tr>
                  <th>File</th>
                  <th className="num">Rows</th>
                  <th>SHA-256</th>
                </tr>
              </thead>
              <tbody>
                {r.files.map((f) => (
                  <tr key={f.path}>
                    <td className="mono">{f.path}</td>
                    <td className="num">{f.rows ?? ''}</td>
                    <td className="mono small" title={f.sha256}>
                      {f.sha256.slice(0, 16)}…
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div style={cardBox}>
              <Markdown text={r.card} />
            </div>
          </>
        ) : null}
      </div>
    </div>
  );
}

function ReleaseDiffView() {
  const search = new URLSearchParams(useSearch());
  const a = Number(search.get('a'));
  const b = Number(search.get('b'));
  const diff = useOp('release:diff', a > 0 && b > 0 ? { a, b, limit: 2000 } : null);
  const d = diff.data;
  return (
    <div className="page">
      <div className="page-inner">
        <div className="muted small">
          <Link href="/releases">Releases</Link> / differences
        </div>
        <ErrorNotice error={diff.error ?? undefined} />
        {d ? (
          <>
            <h1 style={{ margin: 0 }}>
              {d.a.name} {d.a.version} → {d.b.name} {d.b.version}
            </h1>
            <div className="row-gap" data-testid="release-diff-summary">
              <span className="flag-ok">{d.added} added</span>
              <span className="flag-bad">{d.removed} removed</span>
              <span>{d.changed} changed</span>
              <span className="muted">{d.unchanged} unchanged</span>
            </div>
            {d.rows.length ? (
              <table className="plain" data-testid="release-diff">
                <thead>
                  <tr>
                    <th>Change</th>
                    <th>Instance key</th>
                    <th>Split</th>
                    <th>Fields that differ</th>
                  </tr>
                </thead>
                <tbody>
                  {d.rows.map((row) => (
                    <tr key={row.key}>
                      <td className={row.change === 'added' ? 'flag-ok' : row.change === 'removed' ? 'flag-bad' : undefined}>{row.change}</td>
                      <td className="mono">{row.key}</td>
                      <td>{row.splitA === row.splitB ? row.splitA : `${row.splitA ?? '—'} → ${row.splitB ?? '—'}`}</td>
                      <td className="mono small">{row.fields.join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <div className="empty">The two releases hold the same instances with the same content.</div>
            )}
            {d.truncated ? <div className="muted small">Only the first {d.rows.length} differences are listed.</div> : null}
          </>
        ) : null}
      </div>
    </div>
  );
}

export function ReleasesView({ id }: { id?: string | undefined }) {
  if (id === 'diff') return <ReleaseDiffView />;
  if (id !== undefined && Number(id) > 0) return <ReleaseDetailView id={Number(id)} />;
  return <ReleaseList />;
}
