import { useEffect, useState } from 'react';
import { CORPUS_FORMATS, type CorpusFormat, type CorpusImportReport, type ImportReport, type Job } from '../../shared/api';
import { IMPORT_FORMATS, type ImportFormat } from '../../shared/domain';
import { call, download, isDesktop } from '../api';
import { ErrorNotice, formatEta, plural, ProgressBar } from '../components/bits';
import { FileField, uploadName } from '../components/FileField';
import { useJobs, useOp } from '../query';
import { IfAllowed, NotAllowed, useAccess } from '../access';

const FORMAT_LABELS: Record<ImportFormat, string> = {
  musique: 'MuSiQue v1.0 (JSON array or JSONL)',
  asqa: 'ASQA (official splits file or flattened array)',
  ambignq: 'AmbigNQ (light or full)',
  condambigqa: 'CondAmbigQA',
  squad2: 'SQuAD 2.0 (train-v2.0.json / dev-v2.0.json)',
  awb: 'Workbench JSONL (awb-instance/1)',
};

const CORPUS_LABELS: Record<CorpusFormat, string> = {
  musique: 'MuSiQue paragraphs',
  jsonl: 'Passages, JSON Lines {id, title, text}',
  'dpr-tsv': "DPR's psgs_w100.tsv (id, text, title)",
  'wikipedia-jsonl': 'Wikipedia articles, JSON Lines (cut into ~100-word passages)',
};

function guessFormat(name: string): ImportFormat | null {
  const lower = name.toLowerCase();
  return IMPORT_FORMATS.find((f) => lower.includes(f === 'condambigqa' ? 'condambig' : f)) ?? null;
}

/** An import that kept nothing (one invalid record refuses the whole file) finished, but was refused. */
function wasRefused(job: Job): boolean {
  const result = job.kind === 'import' || job.kind === 'corpus-import' ? job.result : null;
  return job.state === 'done' && result?.committed === false;
}

export function JobLine({ job }: { job: Job }) {
  const fraction = job.total ? job.done / job.total : null;
  const refused = wasRefused(job);
  return (
    <div className="job" data-testid="job">
      <span>{job.title}</span>
      {job.state === 'running' ? (
        <>
          <ProgressBar fraction={fraction} />
          <span>{fraction !== null ? `${Math.floor(fraction * 100)}%` : ''}</span>
          <span className="muted">{formatEta(job.etaSeconds)}</span>
          {job.detail ? <span className="muted small">{job.detail}</span> : null}
          <IfAllowed operation="job:cancel">
            <button type="button" className="button small ghost" title="Cancel" aria-label={`Cancel ${job.title}`} onClick={() => void call('job:cancel', { id: job.id })}>
              ✕
            </button>
          </IfAllowed>
        </>
      ) : (
        <span className={job.state === 'done' && !refused ? 'flag-ok' : 'flag-bad'}>{refused ? 'refused' : job.state}</span>
      )}
    </div>
  );
}

function ImportResult({ report }: { report: ImportReport }) {
  return (
    <div className="card" data-testid="import-report">
      <div className={`notice ${report.committed ? (report.rejected ? 'warn' : 'ok') : 'bad'}`}>
        {report.committed
          ? `Imported ${plural(report.imported, 'record')} into “${report.dataset}” (${report.duplicates} already there, ${report.rejected} rejected) in ${report.seconds} s.`
          : `Nothing was imported: ${plural(report.rejected, 'record')} had problems. Fix them, or tick “skip invalid records”.`}
      </div>
      <table className="plain compact">
        <tbody>
          <tr><th>read</th><td className="num">{report.read}</td><th>imported</th><td className="num">{report.imported}</td></tr>
          <tr><th>duplicates</th><td className="num">{report.duplicates}</td><th>rejected</th><td className="num">{report.rejected}</td></tr>
          <tr><th>new passages</th><td className="num">{report.passagesCreated}</td><th>rejects report</th><td>{report.rejectsFile ?? '–'}</td></tr>
        </tbody>
      </table>
      {report.citationLinks ? <CitationLinks links={report.citationLinks} /> : null}
      <ImportErrors errors={report.errors} />
      {report.moreErrors ? <div className="muted">… and {plural(report.moreErrors, 'more problem')}.</div> : null}
    </div>
  );
}

/** How gold citations were linked to the fragments (CondAmbigQA), and those that name none. */
function CitationLinks({ links }: { links: NonNullable<ImportReport['citationLinks']> }) {
  return (
    <div className="small" data-testid="citation-links">
      Gold citations: {links.byNumber} linked by fragment number, {links.byTitleText} by title and text
      {links.numberTextDisagree ? ` (${links.numberTextDisagree} by number although title or text differ)` : ''}.
      {links.unmatched ? (
        <div className="notice warn">
          {plural(links.unmatched, 'citation')} did not match a fragment and were left out:
          <ul>
            {links.examples.map((e, i) => (
              <li key={i}>
                {e.sourceId}: “{e.title}” ({e.reason})
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** Each problem with its place in the file: where, which field, what is wrong. */
function ImportErrors({ errors }: { errors: readonly { location: string; field: string; message: string }[] }) {
  if (!errors.length) return null;
  return (
    <table className="plain" data-testid="import-errors">
      <thead>
        <tr><th>Where</th><th>Field</th><th>Problem</th></tr>
      </thead>
      <tbody>
        {errors.map((e, i) => (
          <tr key={i}>
            <td className="mono">{e.location}</td>
            <td className="mono">{e.field || '–'}</td>
            <td>{e.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CorpusResult({ report }: { report: CorpusImportReport }) {
  return (
    <div className="card" data-testid="import-report">
      <div className={`notice ${report.committed ? 'ok' : 'bad'}`}>
        {report.committed
          ? `Corpus “${report.corpus}”: ${plural(report.passagesCreated, 'new passage')} from ${plural(report.records, 'record')} (${report.duplicates} already there${report.resumedFrom ? `, resumed after record ${report.resumedFrom}` : ''}) in ${report.seconds.toFixed(1)} s. Embed it on the Search page for dense search.`
          : `Nothing was imported: ${plural(report.rejected, 'record')} had problems.`}
      </div>
      <ImportErrors errors={report.errors} />
    </div>
  );
}

export function ImportView() {
  const importing = useAccess().may('dataset:import');
  const [kind, setKind] = useState<'dataset' | 'corpus'>('dataset');
  const [corpusFormat, setCorpusFormat] = useState<CorpusFormat>('jsonl');
  const [path, setPath] = useState('');
  const [format, setFormat] = useState<ImportFormat>('musique');
  const [dataset, setDataset] = useState('');
  const [skipInvalid, setSkipInvalid] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const jobs = useJobs();
  const job = jobs.find((j) => j.id === jobId);

  const choose = (name: string) => {
    const guess = guessFormat(name);
    if (guess) setFormat(guess);
  };

  const start = async () => {
    setError(undefined);
    try {
      const { jobId: id } =
        kind === 'dataset'
          ? await call('dataset:import', { path, format, skipInvalid, ...(dataset.trim() ? { dataset: dataset.trim() } : {}) })
          : await call('corpus:import', { path, format: corpusFormat, skipInvalid, ...(dataset.trim() ? { corpus: dataset.trim() } : {}) });
      setJobId(id);
    } catch (e) {
      setError(e as Error);
    }
  };

  return (
    <div className="page">
      <div className="page-inner">
        <h1>Import</h1>
        <NotAllowed permission={importing} what="import files" />
        <p className="muted">
          Each file is imported all or nothing: one invalid record and nothing from the file is kept, unless you choose to skip invalid records
          (they are then written to a rejects report beside the file). Importing the same file again adds nothing.
        </p>
        <div className="form">
          <span>What</span>
          <div className="segmented" role="radiogroup" aria-label="What to import">
            <button type="button" role="radio" aria-checked={kind === 'dataset'} className={kind === 'dataset' ? 'active' : ''} onClick={() => setKind('dataset')}>
              Questions and instances
            </button>
            <button type="button" role="radio" aria-checked={kind === 'corpus'} className={kind === 'corpus' ? 'active' : ''} onClick={() => setKind('corpus')}>
              Passage corpus
            </button>
          </div>
          <label htmlFor="import-path">File</label>
          <FileField
            id="import-path"
            value={path}
            save={false}
            accept=".json,.jsonl,.ndjson,.csv"
            onChange={(p) => {
              setPath(p);
              choose(uploadName(p));
            }}
          />
          <label htmlFor="import-format">Format</label>
          {kind === 'dataset' ? (
            <select id="import-format" className="input" value={format} onChange={(e) => setFormat(e.target.value as ImportFormat)}>
              {IMPORT_FORMATS.map((f) => (
                <option key={f} value={f}>{FORMAT_LABELS[f]}</option>
              ))}
            </select>
          ) : (
            <select id="import-format" className="input" value={corpusFormat} onChange={(e) => setCorpusFormat(e.target.value as CorpusFormat)}>
              {CORPUS_FORMATS.map((f) => (
                <option key={f} value={f}>{CORPUS_LABELS[f]}</option>
              ))}
            </select>
          )}
          <label htmlFor="import-dataset">{kind === 'dataset' ? 'Dataset name' : 'Corpus name'}</label>
          <input id="import-dataset" className="input" value={dataset} onChange={(e) => setDataset(e.target.value)} placeholder={format === 'awb' ? "each record's own" : 'the file name'} />
          <span />
          <label className="check">
            <input type="checkbox" checked={skipInvalid} onChange={(e) => setSkipInvalid(e.target.checked)} /> Skip invalid records (write them to a rejects report)
          </label>
          <span />
          <div>
            <button type="button" className="button primary" disabled={!path || job?.state === 'running'} onClick={() => void start()}>
              Import
            </button>
          </div>
        </div>
        <ErrorNotice error={error} />
        {job ? <JobLine job={job} /> : null}
        {job?.state === 'done' && job.kind === 'import' && job.result ? <ImportResult report={job.result} /> : null}
        {job?.state === 'done' && job.kind === 'corpus-import' && job.result ? <CorpusResult report={job.result} /> : null}
        {job && job.state !== 'done' && job.state !== 'running' ? <ErrorNotice error={job.error} /> : null}
      </div>
    </div>
  );
}

export function ExportView() {
  const exporting = useAccess().may('dataset:export');
  const datasets = useOp('dataset:list', {});
  const [selected, setSelected] = useState<string[]>([]);
  const [path, setPath] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const info = useOp('app:info', {});
  const jobs = useJobs();
  const job = jobs.find((j) => j.id === jobId);
  useEffect(() => {
    if (!path && info.data) setPath(info.data.databasePath.replace(/[^/\\]+$/, 'export.awb.jsonl'));
  }, [info.data, path]);
  const [downloading, setDownloading] = useState(false);
  const [downloaded, setDownloaded] = useState<string | null>(null);
  const saveHere = async () => {
    setError(undefined);
    setDownloading(true);
    try {
      setDownloaded(await download('dataset:export', { datasets: selected }));
    } catch (e) {
      setError(e as Error);
    } finally {
      setDownloading(false);
    }
  };
  const start = async () => {
    setError(undefined);
    try {
      setJobId((await call('dataset:export', { path, datasets: selected })).jobId);
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <div className="page">
      <div className="page-inner">
        <h1>Export</h1>
        <NotAllowed permission={exporting} what="export instances" />
        <p className="muted">Writes awb-instance/1 JSON Lines: every instance with its interpretations, evidence, answers and provenance, and every base question that has no instance yet. Importing the file elsewhere gives back the same data.</p>
        <div className="form">
          <span>Datasets</span>
          <div>
            {(datasets.data ?? []).map((d) => (
              <label key={d.id} className="check">
                <input type="checkbox" checked={selected.includes(d.name)} onChange={(e) => setSelected(e.target.checked ? [...selected, d.name] : selected.filter((n) => n !== d.name))} />
                {d.name} <span className="muted small">({plural(d.instances, 'instance')}, {plural(d.baseQuestions, 'base question')})</span>
              </label>
            ))}
            <div className="muted small">{selected.length ? '' : 'None ticked: all datasets.'}</div>
          </div>
          <label htmlFor="export-path">Write to</label>
          <FileField id="export-path" value={path} onChange={setPath} save />
          <span />
          <div className="row-gap">
            {isDesktop ? (
              <button type="button" className="button primary" disabled={!path || job?.state === 'running'} onClick={() => void start()}>
                Export
              </button>
            ) : (
              <>
                <button type="button" className="button primary" disabled={downloading} onClick={() => void saveHere()} data-testid="export-download">
                  {downloading ? 'Preparing…' : 'Download'}
                </button>
                {downloaded ? <span className="muted small">Saved {downloaded}</span> : null}
              </>
            )}
          </div>
        </div>
        <ErrorNotice error={error} />
        {job ? <JobLine job={job} /> : null}
        {job?.state === 'done' && job.kind === 'export' && job.result ? (
          <div className="notice ok">
            Wrote {plural(job.result.records, 'record')} to <span className="mono">{job.result.file}</span>.
          </div>
        ) : null}
        <ErrorNotice error={job?.error} />
      </div>
    </div>
  );
}
