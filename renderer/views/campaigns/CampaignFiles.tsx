import { useState } from 'react';
import type { CampaignView as Campaign, JudgmentImportReport, PackImportReport } from '../../../shared/api';
import { OpButton } from '../../access';
import { call, download, isDesktop } from '../../api';
import { ErrorNotice } from '../../components/bits';
import { FileField } from '../../components/FileField';

/** A campaign's files: an annotator's offline pack, pack results and judgments in and out. */

export function dirname(file: string): string {
  return file.replace(/[\\/][^\\/]*$/, '');
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'campaign';
}

export function PackExport({ campaign, annotator, directory }: { campaign: Campaign; annotator: string; directory: string }) {
  const [file, setFile] = useState(`${directory}/packs/${slug(campaign.name)}-${slug(annotator)}.awbpack`);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<Error>();
  return (
    <div className="pack-export">
      <FileField id={`pack-${annotator}`} value={file} onChange={setFile} save />
      <OpButton
        operation="pack:export"
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
      </OpButton>
      {result ? <div className="small flag-ok" data-testid="pack-written">{result}</div> : null}
      <ErrorNotice error={error} />
    </div>
  );
}

export function FilesPanel({ campaign, directory }: { campaign: Campaign; directory: string }) {
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
          <OpButton
            operation="pack:import"
            className="button"
            disabled={!packFile}
            onClick={() => {
              setError(undefined);
              call('pack:import', { path: packFile, campaignId: campaign.id }).then(setPackReport, setError);
            }}
          >
            Import results
          </OpButton>
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
          <OpButton
            operation="judgment:export"
            className="button"
            onClick={() => {
              setError(undefined);
              if (!isDesktop) return void download('judgment:export', { campaignId: campaign.id, format: 'csv' }).then((name) => setExported(`Downloaded ${name}`), setError);
              call('judgment:export', { campaignId: campaign.id, format: format(exportFile), path: exportFile }).then((r) => setExported(`${r.rows} rows → ${r.file}`), setError);
            }}
          >
            {isDesktop ? 'Export' : 'Download CSV'}
          </OpButton>
          {exported ? <span className="small flag-ok">{exported}</span> : null}
        </div>
        <FileField id="import-judgments" value={judgmentsFile} onChange={setJudgmentsFile} save={false} accept=".csv,.jsonl,.ndjson" />
        <div>
          <OpButton
            operation="judgment:import"
            className="button"
            disabled={!judgmentsFile}
            onClick={() => {
              setError(undefined);
              call('judgment:import', { campaignId: campaign.id, format: format(judgmentsFile), path: judgmentsFile }).then(setJudgmentsReport, setError);
            }}
          >
            Import judgments
          </OpButton>
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
