import { useCallback, useEffect, useState } from 'react';
import type { ReleasePreview } from '../../../shared/api';
import { compareSemver } from '../../../shared/release/semver';
import { defaultReleaseFolder } from '../../../shared/release/folder';
import { call, isDesktop } from '../../api';
import { ErrorNotice, plural } from '../../components/bits';
import { Overlay } from '../../components/Overlay';
import { useJobs, useOp } from '../../query';
import { JobLine } from '../ImportView';
import { Card } from './Card';
import { draftOf, formFromRelease, NEW_RELEASE, refusal, type ReleaseForm } from './draft';
import { GateReport } from './Gate';
import { ReleaseFormFields } from './ReleaseFormFields';

/**
 * The create dialog (`/releases/new`, or `/releases/new?from=ID` for a new version of a release,
 * prefilled from it): the form on the left, the live counts, gate and card on the right, and a
 * footer that stays in sight with the one reason Publish is blocked, the errors and the job.
 */

function Preview({ preview }: { preview: ReleasePreview }) {
  return (
    <>
      <div className="card" data-testid="release-counts">
        <div className="card-head">
          <strong>{plural(preview.total, 'instance')}</strong>
          <span className="muted">{Object.entries(preview.counts).map(([s, n]) => `${s} ${n}`).join(' · ')}</span>
        </div>
        <div className="muted small">{Object.entries(preview.perType).map(([t, n]) => `${t} ${n}`).join(' · ')}</div>
        <div className={preview.licence.compatible ? 'muted small' : 'notice bad'}>
          Licence {preview.licence.licence}
          {preview.licence.shareAlike ? ' (share-alike)' : ''}. {preview.licence.problems.join(' ')}
        </div>
      </div>
      <GateReport gate={preview.gate} testId="release-gate" />
      <div className="release-card-box">
        <Card text={preview.card} />
      </div>
    </>
  );
}

/** Why Publish cannot be pressed now, or null. */
function blockedBy(form: ReleaseForm, problem: string | null, preview: { data?: ReleasePreview | undefined; error: Error | null }, running: boolean): string | null {
  if (problem) return problem;
  if (running) return 'Publishing…';
  if (preview.error) return preview.error.message;
  if (!preview.data) return 'Counting the selection…';
  const refused = refusal(preview.data);
  if (refused && !(refused.overridable && form.force.trim())) return refused.overridable ? `${refused.message} Give a reason to publish anyway, or change the selection or thresholds.` : refused.message;
  return null;
}

function CreateForm({ initial, basedOn, onClose, onCreated }: { initial: ReleaseForm; basedOn: string | null; onClose: () => void; onCreated: (id: number) => void }) {
  const info = useOp('app:info', {});
  const jobs = useJobs();
  const [form, setForm] = useState(initial);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<Error | undefined>();
  const set = useCallback((patch: Partial<ReleaseForm>) => setForm((f) => ({ ...f, ...patch })), []);
  const { draft, problem } = draftOf(form);
  const preview = useOp('release:preview', draft);
  const job = jobs.find((j) => j.id === jobId);
  const result = job?.kind === 'release' && job.state === 'done' ? job.result : null;
  useEffect(() => {
    if (result?.id) onCreated(result.id);
  }, [result, onCreated]);
  const folder = form.out ?? defaultReleaseFolder(info.data?.databasePath ?? 'awb.db', form.name, form.version);
  const blocked = blockedBy(form, problem, preview, job?.state === 'running');
  const refused = preview.data ? refusal(preview.data) : null;
  const publish = async () => {
    if (!draft || blocked) return;
    setError(undefined);
    try {
      setJobId((await call('release:create', { ...draft, ...(isDesktop ? { out: folder } : {}), force: form.force.trim() || null })).jobId);
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <div className="release-dialog" data-testid="release-dialog" onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && void publish()}>
      <div className="release-dialog-body">
        <div>
          {basedOn ? <div className="notice small" data-testid="release-based-on">New version of {basedOn}: its selection, campaign, splits, thresholds and texts are carried over.</div> : null}
          <ReleaseFormFields form={form} set={set} problem={problem} preview={preview.data} folder={folder} />
        </div>
        <div style={{ display: 'flex', flexDirection: 'column', gap: 12, minWidth: 0 }}>
          {!draft ? <p className="muted">Name the release to see its counts, gate and card.</p> : preview.data ? <Preview preview={preview.data} /> : null}
        </div>
      </div>
      <footer className="release-dialog-footer" data-testid="release-footer">
        <div className="blocked">
          <ErrorNotice error={error ?? job?.error} />
          {result && result.id === null ? <div className="notice bad">The gate refused the release; nothing was written.</div> : null}
          {job?.state === 'running' ? <JobLine job={job} /> : null}
          {blocked && !error && !job?.error ? (
            <span className="small flag-bad" data-testid="release-blocked">
              {blocked}
            </span>
          ) : null}
        </div>
        {refused?.overridable ? (
          <input aria-label="Publish anyway because" className="input" style={{ width: 260 }} value={form.force} onChange={(e) => set({ force: e.target.value })} placeholder="reason to publish anyway (recorded)" />
        ) : null}
        <button type="button" className="button primary" disabled={blocked !== null} onClick={() => void publish()} data-testid="release-publish" title="Ctrl+Enter">
          Publish {form.name.trim() ? `${form.name.trim()} ${form.version}` : ''}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </footer>
    </div>
  );
}

export function CreateDialog({ from, onClose, onCreated }: { from: number | null; onClose: () => void; onCreated: (id: number) => void }) {
  const source = useOp('release:get', from !== null ? { id: from } : null);
  const releases = useOp('release:list', {});
  const loading = from !== null && (!source.data || !releases.data);
  let initial = NEW_RELEASE;
  if (from !== null && source.data && releases.data) {
    const taken = releases.data.filter((r) => r.name === source.data.name).map((r) => r.version);
    // From the latest version of that name, whichever was opened.
    const latest = [...taken].sort(compareSemver).at(-1) ?? source.data.version;
    initial = formFromRelease({ ...source.data, version: latest }, taken);
  }
  return (
    <Overlay onClose={onClose} label="New release" wide>
      {loading ? (
        <div style={{ padding: 16 }}>{source.error ? <ErrorNotice error={source.error} /> : 'Loading the release to start from…'}</div>
      ) : (
        <CreateForm key={from ?? 'new'} initial={initial} basedOn={source.data ? `${source.data.name} ${source.data.version}` : null} onClose={onClose} onCreated={onCreated} />
      )}
    </Overlay>
  );
}
