import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { CampaignSelection, CampaignView as Campaign, JudgmentImportReport, PackImportReport } from '../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../shared/domain';
import { call, download, isDesktop } from '../api';
import { DoneOfTotal, ErrorNotice } from '../components/bits';
import { FileField } from '../components/FileField';
import { useOp } from '../query';
import { AgreementPanel, DisagreementsPanel } from './AgreementView';

/** Campaigns: the list, a new campaign, one campaign's progress, packs and judgments files. */

function dirname(file: string): string {
  return file.replace(/[\\/][^\\/]*$/, '');
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'campaign';
}

export function CampaignsView() {
  const list = useOp('campaign:list', {});
  const [, navigate] = useLocation();
  const [pack, setPack] = useState('');
  return (
    <div className="page">
      <div className="page-inner narrow">
        <div className="page-head">
          <h1>Campaigns</h1>
          <div className="spacer" />
          <Link href="/protocols" className="button">
            Protocols
          </Link>
          <Link href="/campaigns/new" className="button primary">
            New campaign
          </Link>
        </div>
        <ErrorNotice error={list.error} />
        {list.data && list.data.length === 0 ? (
          <div className="empty">
            No campaign yet. A campaign samples instances, gives them to annotators under a protocol, and measures how far they agree.{' '}
            <Link href="/campaigns/new">Create one.</Link>
          </div>
        ) : null}
        {list.data?.length ? (
          <table className="plain" data-testid="campaigns">
            <thead>
              <tr>
                <th>Campaign</th>
                <th>Protocol</th>
                <th className="num">Items</th>
                <th className="num">Annotators</th>
                <th style={{ width: 220 }}>Progress</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((c) => (
                <tr key={c.id} className="clickable" onClick={() => navigate(`/campaigns/${c.id}`)}>
                  <td>
                    <Link href={`/campaigns/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>{c.protocol}</td>
                  <td className="num">{c.items}</td>
                  <td className="num">{c.annotators}</td>
                  <td>
                    <DoneOfTotal done={c.done} total={c.total} />
                  </td>
                  <td className="muted small">{c.createdAt.slice(0, 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <section className="card">
          <h2>Open an annotation pack</h2>
          <p className="small muted">
            A pack holds one annotator's items, the protocol and its guidelines. Judging it needs no database and no network; each decision is saved to a
            results file beside the pack (<span className="mono">PACK.results.jsonl</span>), which the maintainer imports with{' '}
            <span className="mono">awb pack import</span>.
          </p>
          <FileField id="open-pack" value={pack} onChange={setPack} save={false} accept=".awbpack,.json" />
          <div>
            <button type="button" className="button primary" disabled={!pack} onClick={() => navigate(`/judge?pack=${encodeURIComponent(pack)}`)}>
              Open pack
            </button>
          </div>
        </section>
      </div>
    </div>
  );
}

function toggle<T>(list: readonly T[], value: T): T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

export function NewCampaignView() {
  const [, navigate] = useLocation();
  const protocols = useOp('protocol:list', {});
  const datasets = useOp('dataset:list', {});
  const [name, setName] = useState('');
  const [protocol, setProtocol] = useState('march-validation');
  const [annotators, setAnnotators] = useState('');
  const [perInstance, setPerInstance] = useState('');
  const [seed, setSeed] = useState('1');
  const [blind, setBlind] = useState(true);
  const [selection, setSelection] = useState<CampaignSelection>({ perType: 20 });
  const [preview, setPreview] = useState<{ items: number; perType: Record<string, number> } | null>(null);
  const [error, setError] = useState<Error>();
  const names = annotators.split(/[,\n]/).map((a) => a.trim()).filter(Boolean);

  useEffect(() => {
    const timer = setTimeout(() => {
      call('campaign:preview', { selection, seed: Number(seed) || 1 }).then(setPreview, () => setPreview(null));
    }, 150);
    return () => clearTimeout(timer);
  }, [selection, seed]);

  const create = async () => {
    setError(undefined);
    try {
      const view = await call('campaign:create', {
        name: name.trim(),
        protocol,
        annotators: names,
        ...(perInstance ? { perInstance: Number(perInstance) } : {}),
        seed: Number(seed) || 1,
        blind,
        selection,
      });
      navigate(`/campaigns/${view.id}`);
    } catch (e) {
      setError(e as Error);
    }
  };

  const chosen = protocols.data?.find((p) => p.key === protocol);
  return (
    <div className="page">
      <div className="page-inner narrow">
        <div className="crumbs">
          <Link href="/campaigns">← Campaigns</Link>
        </div>
        <h1>New campaign</h1>
        <div className="form">
          <label htmlFor="campaign-name">Name</label>
          <input id="campaign-name" className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. MARCH validation, round 1" autoFocus />
          <label htmlFor="campaign-protocol">Protocol</label>
          <div>
            <select id="campaign-protocol" className="input" value={protocol} onChange={(e) => setProtocol(e.target.value)}>
              {protocols.data?.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.name} (v{p.version})
                </option>
              ))}
            </select>
            {chosen ? <div className="small muted">{chosen.criteria.map((c) => c.label).join(' · ')}</div> : null}
          </div>
          <label htmlFor="campaign-annotators">Annotators</label>
          <textarea id="campaign-annotators" className="input" rows={2} value={annotators} onChange={(e) => setAnnotators(e.target.value)} placeholder="names, separated by commas or lines" />
          <label htmlFor="campaign-k">Annotators per instance</label>
          <input
            id="campaign-k"
            className="input narrow-input"
            type="number"
            min={1}
            max={names.length || undefined}
            value={perInstance}
            onChange={(e) => setPerInstance(e.target.value)}
            placeholder={`all (${names.length})`}
          />
          <span>Instances</span>
          <div className="selection">
            <div>
              <span className="muted small">datasets (none ticked: all)</span>
              {datasets.data?.map((d) => (
                <label key={d.name} className="check">
                  <input type="checkbox" checked={selection.datasets?.includes(d.name) ?? false} onChange={() => setSelection({ ...selection, datasets: toggle(selection.datasets ?? [], d.name) })} /> {d.name}{' '}
                  <span className="muted">({d.instances})</span>
                </label>
              ))}
            </div>
            <div>
              <span className="muted small">ambiguity types</span>
              {AMBIGUITY_TYPES.map((t) => (
                <label key={t} className="check">
                  <input type="checkbox" checked={selection.types?.includes(t) ?? false} onChange={() => setSelection({ ...selection, types: toggle(selection.types ?? [], t) })} /> {t}
                </label>
              ))}
            </div>
            <div>
              <span className="muted small">status</span>
              {INSTANCE_STATUSES.map((s) => (
                <label key={s} className="check">
                  <input type="checkbox" checked={selection.statuses?.includes(s) ?? false} onChange={() => setSelection({ ...selection, statuses: toggle(selection.statuses ?? [], s) })} /> {s}
                </label>
              ))}
            </div>
          </div>
          <label htmlFor="campaign-per-type">Sample per type</label>
          <div className="row-gap">
            <input
              id="campaign-per-type"
              className="input narrow-input"
              type="number"
              min={1}
              value={selection.perType ?? ''}
              placeholder="all"
              onChange={(e) => {
                const { perType: _drop, ...rest } = selection;
                setSelection(e.target.value ? { ...rest, perType: Number(e.target.value) } : rest);
              }}
            />
            <label htmlFor="campaign-seed">seed</label>
            <input id="campaign-seed" className="input narrow-input" type="number" value={seed} onChange={(e) => setSeed(e.target.value)} />
            <span className="small muted">the same seed draws the same sample and the same assignment</span>
          </div>
          <span />
          <label className="check">
            <input type="checkbox" checked={blind} onChange={(e) => setBlind(e.target.checked)} /> Blind: annotators see neither each other's judgments nor the LLM filter votes
          </label>
          <span />
          <div className="notice" data-testid="campaign-preview">
            {preview
              ? `${preview.items} instances${Object.keys(preview.perType).length ? ` (${Object.entries(preview.perType).map(([t, n]) => `${t} ${n}`).join(', ')})` : ''}` +
                (names.length ? ` · ${preview.items * Math.min(Number(perInstance) || names.length, names.length)} judgments of each criterion, about ${Math.ceil((preview.items * Math.min(Number(perInstance) || names.length, names.length)) / names.length)} items per annotator` : '')
              : 'Counting…'}
          </div>
          <span />
          <div>
            <button type="button" className="button primary" disabled={!name.trim() || names.length === 0 || !preview?.items} onClick={() => void create()}>
              Create campaign
            </button>
          </div>
        </div>
        <ErrorNotice error={error} />
      </div>
    </div>
  );
}

function PackExport({ campaign, annotator, directory }: { campaign: Campaign; annotator: string; directory: string }) {
  const [file, setFile] = useState(`${directory}/packs/${slug(campaign.name)}-${slug(annotator)}.awbpack`);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<Error>();
  return (
    <div className="pack-export">
      <FileField id={`pack-${annotator}`} value={file} onChange={setFile} save />
      <button
        type="button"
        className="button small"
        onClick={() => {
          setError(undefined);
          if (!isDesktop) return void download('pack:export', { campaignId: campaign.id, annotator }).then((name) => setResult(`Downloaded ${name}`), setError);
          call('pack:export', { campaignId: campaign.id, annotator, path: file }).then(
            (r) => setResult(`${r.items} items, ${(r.bytes / 1024).toFixed(0)} KiB → ${r.file}`),
            setError,
          );
        }}
      >
        {isDesktop ? 'Write pack' : 'Download pack'}
      </button>
      {result ? <div className="small flag-ok" data-testid="pack-written">{result}</div> : null}
      <ErrorNotice error={error} />
    </div>
  );
}

function FilesPanel({ campaign, directory }: { campaign: Campaign; directory: string }) {
  const [packFile, setPackFile] = useState('');
  const [packReport, setPackReport] = useState<PackImportReport | null>(null);
  const [judgmentsFile, setJudgmentsFile] = useState('');
  const [judgmentsReport, setJudgmentsReport] = useState<JudgmentImportReport | null>(null);
  const [exportFile, setExportFile] = useState(`${directory}/exports/${slug(campaign.name)}-judgments.csv`);
  const [exported, setExported] = useState<string | null>(null);
  const [error, setError] = useState<Error>();
  const format = (file: string) => (/\.jsonl$|\.ndjson$/i.test(file) ? 'jsonl' : 'csv');
  return (
    <div className="grid-2">
      <section className="card">
        <h2>Import pack results</h2>
        <p className="small muted">The pack file (its results file must sit beside it) or the .results.jsonl itself. Importing the same results twice changes nothing.</p>
        <FileField id="import-pack" value={packFile} onChange={setPackFile} save={false} accept=".awbpack,.json,.jsonl" />
        <div>
          <button
            type="button"
            className="button"
            disabled={!packFile}
            onClick={() => {
              setError(undefined);
              call('pack:import', { path: packFile, campaignId: campaign.id }).then(setPackReport, setError);
            }}
          >
            Import results
          </button>
        </div>
        {packReport ? (
          <div className={`notice ${packReport.conflicts ? 'warn' : 'ok'}`} data-testid="pack-import-report">
            {packReport.annotator}: {packReport.imported} new judgments, {packReport.already} already imported, {packReport.conflicts} conflicts
            {packReport.conflicts ? ' (see Disagreements)' : ''}.
          </div>
        ) : null}
      </section>
      <section className="card">
        <h2>Judgments as a file</h2>
        <p className="small muted">
          Columns <span className="mono">campaign, instance_id, annotator, criterion, value, comment, created_at</span>; CSV or JSON Lines by the file's extension.
        </p>
        <FileField id="export-judgments" value={exportFile} onChange={setExportFile} save />
        <div className="row-gap">
          <button
            type="button"
            className="button"
            onClick={() => {
              setError(undefined);
              if (!isDesktop) return void download('judgment:export', { campaignId: campaign.id, format: 'csv' }).then((name) => setExported(`Downloaded ${name}`), setError);
              call('judgment:export', { campaignId: campaign.id, format: format(exportFile), path: exportFile }).then((r) => setExported(`${r.rows} rows → ${r.file}`), setError);
            }}
          >
            {isDesktop ? 'Export' : 'Download CSV'}
          </button>
          {exported ? <span className="small flag-ok">{exported}</span> : null}
        </div>
        <FileField id="import-judgments" value={judgmentsFile} onChange={setJudgmentsFile} save={false} accept=".csv,.jsonl,.ndjson" />
        <div>
          <button
            type="button"
            className="button"
            disabled={!judgmentsFile}
            onClick={() => {
              setError(undefined);
              call('judgment:import', { campaignId: campaign.id, format: format(judgmentsFile), path: judgmentsFile }).then(setJudgmentsReport, setError);
            }}
          >
            Import judgments
          </button>
        </div>
        {judgmentsReport ? (
          <div className={`notice ${judgmentsReport.committed ? 'ok' : 'bad'}`} data-testid="judgments-import-report">
            {judgmentsReport.committed
              ? `Imported ${judgmentsReport.imported} judgments (${judgmentsReport.already} already there).`
              : `Nothing was imported: ${judgmentsReport.errors.length} problems.`}
            {judgmentsReport.errors.slice(0, 20).map((e, i) => (
              <div key={i} className="small mono">
                {e.location}
                {e.field ? ` · ${e.field}` : ''}: {e.message}
              </div>
            ))}
          </div>
        ) : null}
      </section>
      <ErrorNotice error={error} />
    </div>
  );
}

const TABS = ['overview', 'agreement', 'disagreements', 'files'] as const;
type Tab = (typeof TABS)[number];

export function CampaignView({ id, tab }: { id: number; tab: Tab }) {
  const campaign = useOp('campaign:get', { id });
  const info = useOp('app:info', {});
  const [, navigate] = useLocation();
  const c = campaign.data;
  const directory = info.data ? dirname(info.data.databasePath) : '.';
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <Link href="/campaigns">← Campaigns</Link>
        </div>
        <ErrorNotice error={campaign.error} />
        {c ? (
          <>
            <header className="page-head">
              <div>
                <h1 data-testid="campaign-name">{c.name}</h1>
                <div className="small muted">
                  {c.protocol.name} v{c.protocol.version} · {c.items.length} instances · {c.annotators.length} annotators, {c.perInstance} per instance · seed {c.seed} ·{' '}
                  {c.blind ? 'blind' : 'not blind'} · created {c.createdAt.slice(0, 16).replace('T', ' ')}
                </div>
              </div>
            </header>
            <div className="tabs" role="tablist">
              {TABS.map((t) => (
                <button key={t} type="button" role="tab" aria-selected={t === tab} className={t === tab ? 'active' : ''} onClick={() => navigate(`/campaigns/${id}${t === 'overview' ? '' : `/${t}`}`)}>
                  {t[0]!.toUpperCase() + t.slice(1)}
                </button>
              ))}
            </div>
            {tab === 'overview' ? (
              <table className="plain" data-testid="campaign-progress">
                <thead>
                  <tr>
                    <th>Annotator</th>
                    <th style={{ width: 240 }}>Done</th>
                    <th className="num">Skipped</th>
                    <th className="num">Time</th>
                    <th>Judge</th>
                    <th>Offline pack</th>
                  </tr>
                </thead>
                <tbody>
                  {c.progress.map((p) => (
                    <tr key={p.annotator}>
                      <td>{p.annotator}</td>
                      <td>
                        <DoneOfTotal done={p.done} total={p.total} />
                      </td>
                      <td className="num">{p.skipped}</td>
                      <td className="num">{p.seconds ? `${Math.round(p.seconds / 60)} min (${(p.seconds / Math.max(1, p.done)).toFixed(0)} s/item)` : '–'}</td>
                      <td>
                        <Link href={`/judge?campaign=${c.id}&annotator=${encodeURIComponent(p.annotator)}`} className="button small">
                          Judge as {p.annotator}
                        </Link>
                      </td>
                      <td>
                        <PackExport campaign={c} annotator={p.annotator} directory={directory} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {tab === 'agreement' ? <AgreementPanel campaignId={c.id} criteria={c.protocol.criteria} /> : null}
            {tab === 'disagreements' ? <DisagreementsPanel campaign={c} /> : null}
            {tab === 'files' ? <FilesPanel campaign={c} directory={directory} /> : null}
          </>
        ) : null}
      </div>
    </div>
  );
}
