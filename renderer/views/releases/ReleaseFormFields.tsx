import type { ReleasePreview } from '../../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../../shared/domain';
import { isDesktop } from '../../api';
import { plural } from '../../components/bits';
import { FileField } from '../../components/FileField';
import { useOp } from '../../query';
import type { ReleaseForm } from './draft';

/** The left column of the create dialog: what to release, how to split it, the gate, the texts, where to write. */

type Set = (patch: Partial<ReleaseForm>) => void;

function toggled<T>(list: readonly T[], value: T, on: boolean): T[] {
  return on ? [...list, value] : list.filter((v) => v !== value);
}

function Checks<T extends string>({ options, chosen, onChange, label }: { options: readonly T[]; chosen: readonly T[]; onChange: (next: T[]) => void; label: (o: T) => string }) {
  return (
    <div className="row-gap">
      {options.map((o) => (
        <label key={o} className="check">
          <input type="checkbox" checked={chosen.includes(o)} onChange={(e) => onChange(toggled(chosen, o, e.target.checked))} />
          {label(o)}
        </label>
      ))}
    </div>
  );
}

function SelectionFields({ form, set }: { form: ReleaseForm; set: Set }) {
  const datasets = useOp('dataset:list', {});
  const campaigns = useOp('campaign:list', {});
  return (
    <>
      <span>Datasets</span>
      <div>
        {(datasets.data ?? []).map((d) => (
          <label key={d.id} className="check">
            <input type="checkbox" checked={form.datasets.includes(d.name)} onChange={(e) => set({ datasets: toggled(form.datasets, d.name, e.target.checked) })} />
            {d.name} <span className="muted small">({plural(d.instances, 'instance')})</span>
          </label>
        ))}
        <div className="muted small">{form.datasets.length ? '' : 'None ticked: every dataset.'}</div>
      </div>
      <span>Types</span>
      <Checks options={AMBIGUITY_TYPES} chosen={form.types} onChange={(types) => set({ types })} label={(t) => t} />
      <span>Statuses</span>
      <Checks options={INSTANCE_STATUSES} chosen={form.statuses} onChange={(statuses) => set({ statuses })} label={(s) => s} />
      <label htmlFor="release-campaign">Validation</label>
      <div>
        <select id="release-campaign" className="input" style={{ maxWidth: '100%' }} value={form.campaignId ?? ''} onChange={(e) => set({ campaignId: e.target.value ? Number(e.target.value) : null })}>
          <option value="">No campaign</option>
          {(campaigns.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              #{c.id} {c.name} ({c.protocol})
            </option>
          ))}
        </select>
        {form.campaignId !== null ? (
          <label className="check">
            <input type="checkbox" checked={form.onlyValid} onChange={(e) => set({ onlyValid: e.target.checked })} /> only instances with a positive verdict
          </label>
        ) : null}
      </div>
    </>
  );
}

function SplitFields({ form, set, problem }: { form: ReleaseForm; set: Set; problem: string | null }) {
  return (
    <>
      <span>Splits</span>
      <div>
        <div className="row-gap">
          <label className="check">
            <input type="radio" checked={form.splitMode === 'fractions'} onChange={() => set({ splitMode: 'fractions' })} /> fractions
          </label>
          <label className="check">
            <input type="radio" checked={form.splitMode === 'source'} onChange={() => set({ splitMode: 'source' })} /> the source's own split
          </label>
        </div>
        {form.splitMode === 'fractions' ? (
          <div className="row-gap">
            <input aria-label="Split fractions" className="input" value={form.splitText} onChange={(e) => set({ splitText: e.target.value })} style={{ flex: 1 }} />
            <input aria-label="Seed" className="input" value={form.seed} onChange={(e) => set({ seed: e.target.value })} style={{ width: 70 }} title="seed" />
          </div>
        ) : null}
        {problem?.startsWith('Splits') ? <div className="flag-bad small">{problem}</div> : <div className="muted small">Stratified by ambiguity type; the seed fixes the draw.</div>}
      </div>
    </>
  );
}

function GateFields({ form, set }: { form: ReleaseForm; set: Set }) {
  const field = (id: string, label: string, key: 'minKappa' | 'minAc1' | 'minYesRate' | 'minJudgments') => (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} className="input" inputMode="decimal" value={form[key]} onChange={(e) => set({ [key]: e.target.value })} />
    </>
  );
  return (
    <>
      <span>Gate</span>
      <div style={{ display: 'grid', gridTemplateColumns: 'auto 80px', gap: '4px 8px', alignItems: 'center' }}>
        {field('gate-kappa', "min Fleiss' κ", 'minKappa')}
        {field('gate-ac1', "min Gwet's AC1", 'minAc1')}
        {field('gate-yes', 'min YES rate', 'minYesRate')}
        {field('gate-judgments', 'min judgments / instance', 'minJudgments')}
        <label className="check" style={{ gridColumn: '1 / -1' }}>
          <input type="checkbox" checked={form.noUnresolved} onChange={(e) => set({ noUnresolved: e.target.checked })} /> no unresolved disagreements
        </label>
      </div>
    </>
  );
}

function FolderField({ form, set, folder }: { form: ReleaseForm; set: Set; folder: string }) {
  if (!isDesktop) {
    return (
      <>
        <span>Write to</span>
        <span className="small muted" data-testid="release-folder">
          The server writes it to <span className="mono">releases/{folder.split(/[\\/]/).pop()}</span> beside its database; download it as a zip once it is published.
        </span>
      </>
    );
  }
  return (
    <>
      <label htmlFor="release-out">Write to</label>
      <div>
        <FileField id="release-out" value={folder} onChange={(out) => set({ out })} save />
        {form.out !== null ? (
          <button type="button" className="button small ghost" onClick={() => set({ out: null })}>
            back to the default (from name and version)
          </button>
        ) : null}
      </div>
    </>
  );
}

export function ReleaseFormFields({ form, set, problem, preview, folder }: { form: ReleaseForm; set: Set; problem: string | null; preview: ReleasePreview | undefined; folder: string }) {
  return (
    <div className="form" style={{ alignContent: 'start' }}>
      <h2 style={{ gridColumn: '1 / -1', margin: 0 }}>New release</h2>
      <label htmlFor="release-name">Name</label>
      <input id="release-name" className="input" value={form.name} onChange={(e) => set({ name: e.target.value })} placeholder="MARCH" autoFocus />
      <label htmlFor="release-version">Version</label>
      <input id="release-version" className="input" value={form.version} onChange={(e) => set({ version: e.target.value })} />
      <SelectionFields form={form} set={set} />
      <SplitFields form={form} set={set} problem={problem} />
      <GateFields form={form} set={set} />
      <label htmlFor="release-licence">Licence</label>
      <input id="release-licence" className="input" value={form.licence} onChange={(e) => set({ licence: e.target.value })} placeholder={preview ? `${preview.licence.licence} (from the sources)` : 'SPDX id'} />
      <label htmlFor="release-description">Description</label>
      <textarea id="release-description" className="input" rows={3} value={form.description} onChange={(e) => set({ description: e.target.value })} />
      <label htmlFor="release-authors">Authors</label>
      <input id="release-authors" className="input" value={form.authors} onChange={(e) => set({ authors: e.target.value })} placeholder="for the citation" />
      <FolderField form={form} set={set} folder={folder} />
    </div>
  );
}
