import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { CampaignSelection } from '../../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../../shared/domain';
import { NotAllowed, useAccess } from '../../access';
import { call } from '../../api';
import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';

/** A new campaign: name, protocol (MARCH validation unless chosen otherwise), annotators, the sample, with a live count. */

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
  const creating = useAccess().may('campaign:create');
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
        <NotAllowed permission={creating} what="create campaigns" />
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
            <button type="button" className="button primary" disabled={!creating.allowed || !name.trim() || names.length === 0 || !preview?.items} onClick={() => void create()}>
              Create campaign
            </button>
          </div>
        </div>
        <ErrorNotice error={error} />
      </div>
    </div>
  );
}
