import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import Markdown from 'react-markdown';
import { Link, useLocation } from 'wouter';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import { scaleValues, type Criterion, type Protocol, type ProtocolDocument, type Scale } from '../../shared/protocols';
import { ErrorNotice } from '../components/bits';
import { saveFile } from '../download';
import { opKey, useOp, useOpMutation } from '../query';
import { IfAllowed, OpButton } from '../access';

/** Protocols are data: browse them, read their guidelines, edit a copy, export and import JSON. */

function documentOf(p: Protocol): ProtocolDocument {
  return { key: p.key, name: p.name, description: p.description, guidelines: p.guidelines, criteria: p.criteria };
}

function describeScale(scale: Scale): string {
  switch (scale.kind) {
    case 'yesno':
      return 'YES / NO';
    case 'ordinal':
      return `${scale.min}–${scale.max}`;
    case 'categorical':
      return scale.options.map((o) => o.label).join(' / ');
    case 'text':
      return 'free text';
  }
}

function ProtocolDetail({ protocol, onEdit }: { protocol: Protocol; onEdit: (document: ProtocolDocument, copy: boolean) => void }) {
  const versions = useOp('protocol:versions', { key: protocol.key });
  return (
    <div className="stack" data-testid="protocol-detail">
      <header className="card-head">
        <div>
          <h1>{protocol.name}</h1>
          <div className="small muted">
            <span className="mono">{protocol.key}</span> v{protocol.version} {protocol.builtIn ? '· built in' : ''} · {versions.data?.length ?? 1} version
            {(versions.data?.length ?? 1) === 1 ? '' : 's'}
          </div>
        </div>
        <div className="spacer" />
        {protocol.builtIn ? null : (
          <IfAllowed operation="protocol:save">
            <button type="button" className="button" onClick={() => onEdit(documentOf(protocol), false)}>
              Edit (new version)
            </button>
          </IfAllowed>
        )}
        <OpButton operation="protocol:save" className="button" onClick={() => onEdit({ ...documentOf(protocol), key: `${protocol.key}-copy`, name: `${protocol.name} (copy)` }, true)}>
          Duplicate
        </OpButton>
        <button type="button" className="button" onClick={() => saveFile(`${protocol.key}-v${protocol.version}.json`, JSON.stringify({ format: 'awb-protocol/1', version: protocol.version, ...documentOf(protocol) }, null, 2), 'application/json')}>
          Export JSON
        </button>
      </header>
      {protocol.description ? <p>{protocol.description}</p> : null}
      <table className="plain">
        <thead>
          <tr>
            <th>Criterion</th>
            <th>Question</th>
            <th>Scale</th>
          </tr>
        </thead>
        <tbody>
          {protocol.criteria.map((c) => (
            <tr key={c.id}>
              <td>
                <strong>{c.label}</strong>
                <div className="mono small muted">{c.id}</div>
              </td>
              <td>
                {c.question}
                {Object.entries(c.questionByType).map(([type, q]) => (
                  <div key={type} className="small muted">
                    {type}: {q}
                  </div>
                ))}
              </td>
              <td>
                {describeScale(c.scale)}
                {c.required ? '' : <span className="muted small"> (optional)</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {protocol.guidelines ? (
        <section className="card markdown">
          <Markdown>{protocol.guidelines}</Markdown>
        </section>
      ) : null}
    </div>
  );
}

const NEW_CRITERION: Criterion = { id: 'new_criterion', label: 'New criterion', question: 'What should the annotator decide?', questionByType: {}, scale: { kind: 'yesno' }, required: true, help: '' };

function scaleFor(kind: Scale['kind'], previous: Scale): Scale {
  if (kind === previous.kind) return previous;
  if (kind === 'ordinal') return { kind, min: 1, max: 5, anchors: {} };
  if (kind === 'categorical') return { kind, options: [{ value: 'accept', label: 'Accept' }, { value: 'reject', label: 'Reject' }] };
  return { kind };
}

function CriterionEditor({ criterion, onChange, onRemove, onMove }: { criterion: Criterion; onChange: (c: Criterion) => void; onRemove: () => void; onMove: (delta: number) => void }) {
  const set = <K extends keyof Criterion>(key: K, value: Criterion[K]) => onChange({ ...criterion, [key]: value });
  const scale = criterion.scale;
  return (
    <section className="card criterion-editor" data-testid="criterion-editor">
      <div className="row-gap">
        <input className="input mono narrow-input" value={criterion.id} onChange={(e) => set('id', e.target.value)} aria-label="Criterion id" />
        <input className="input" style={{ flex: 1 }} value={criterion.label} onChange={(e) => set('label', e.target.value)} aria-label="Label" />
        <select className="input narrow-input" value={scale.kind} onChange={(e) => set('scale', scaleFor(e.target.value as Scale['kind'], scale))} aria-label="Scale">
          <option value="yesno">YES / NO</option>
          <option value="ordinal">rating</option>
          <option value="categorical">choice</option>
          <option value="text">free text</option>
        </select>
        <label className="check">
          <input type="checkbox" checked={criterion.required} onChange={(e) => set('required', e.target.checked)} /> required
        </label>
        <button type="button" className="button small ghost" onClick={() => onMove(-1)} title="Move up">
          ↑
        </button>
        <button type="button" className="button small ghost" onClick={() => onMove(1)} title="Move down">
          ↓
        </button>
        <button type="button" className="button small ghost" onClick={onRemove} title="Remove">
          ✕
        </button>
      </div>
      <textarea className="input" rows={2} value={criterion.question} onChange={(e) => set('question', e.target.value)} aria-label="Question" />
      <details>
        <summary className="small muted">Worded per ambiguity type (optional)</summary>
        {AMBIGUITY_TYPES.map((type) => (
          <div key={type} className="row-gap">
            <span className="small muted" style={{ width: 90 }}>
              {type}
            </span>
            <input
              className="input"
              style={{ flex: 1 }}
              value={criterion.questionByType[type] ?? ''}
              onChange={(e) => {
                const { [type]: _drop, ...rest } = criterion.questionByType;
                set('questionByType', e.target.value ? { ...rest, [type]: e.target.value } : rest);
              }}
            />
          </div>
        ))}
      </details>
      {scale.kind === 'ordinal' ? (
        <div className="row-gap small">
          from <input className="input narrow-input" type="number" value={scale.min} onChange={(e) => set('scale', { ...scale, min: Number(e.target.value) })} aria-label="Lowest" />
          to <input className="input narrow-input" type="number" value={scale.max} onChange={(e) => set('scale', { ...scale, max: Number(e.target.value) })} aria-label="Highest" />
          <span className="muted">keys {scaleValues(scale).map((v) => Number(v) % 10).join(' ')}</span>
        </div>
      ) : null}
      {scale.kind === 'categorical' ? (
        <textarea
          className="input mono"
          rows={Math.max(2, scale.options.length)}
          value={scale.options.map((o) => `${o.value}: ${o.label}`).join('\n')}
          onChange={(e) =>
            set('scale', {
              ...scale,
              options: e.target.value
                .split('\n')
                .filter((l) => l.trim())
                .map((l) => {
                  const [value, ...label] = l.split(':');
                  return { value: value!.trim(), label: label.join(':').trim() || value!.trim() };
                }),
            })
          }
          aria-label="Options, one per line: value: label"
        />
      ) : null}
      <input className="input" value={criterion.help} onChange={(e) => set('help', e.target.value)} placeholder="help shown under the question (optional)" aria-label="Help" />
    </section>
  );
}

/** Saves a protocol document; the saved protocol is in the list at once (which is fetched again after the change anyway). */
function useSaveProtocol() {
  const client = useQueryClient();
  return useOpMutation('protocol:save', {
    onSuccess: (saved) =>
      client.setQueryData<Protocol[]>(opKey('protocol:list', {}), (list) =>
        list && (list.some((p) => p.key === saved.key) ? list.map((p) => (p.key === saved.key ? saved : p)) : [...list, saved]),
      ),
  });
}

function ProtocolEditor({ initial, onSaved, onCancel }: { initial: ProtocolDocument; onSaved: (p: Protocol) => void; onCancel: () => void }) {
  const [doc, setDoc] = useState<ProtocolDocument>(initial);
  const [preview, setPreview] = useState(false);
  const save = useSaveProtocol();
  const setCriterion = (i: number, c: Criterion | null) => {
    const criteria = [...doc.criteria];
    if (c) criteria[i] = c;
    else criteria.splice(i, 1);
    setDoc({ ...doc, criteria });
  };
  const move = (i: number, delta: number) => {
    const j = i + delta;
    if (j < 0 || j >= doc.criteria.length) return;
    const criteria = [...doc.criteria];
    [criteria[i], criteria[j]] = [criteria[j]!, criteria[i]!];
    setDoc({ ...doc, criteria });
  };
  return (
    <div className="stack" data-testid="protocol-editor">
      <div className="form">
        <label htmlFor="protocol-key">Id</label>
        <input id="protocol-key" className="input mono" value={doc.key} onChange={(e) => setDoc({ ...doc, key: e.target.value })} />
        <label htmlFor="protocol-name">Name</label>
        <input id="protocol-name" className="input" value={doc.name} onChange={(e) => setDoc({ ...doc, name: e.target.value })} />
        <label htmlFor="protocol-description">Description</label>
        <input id="protocol-description" className="input" value={doc.description} onChange={(e) => setDoc({ ...doc, description: e.target.value })} />
        <label htmlFor="protocol-guidelines">Guidelines</label>
        <div>
          <div className="segmented small" role="radiogroup" aria-label="Guidelines view">
            <button type="button" role="radio" aria-checked={!preview} className={!preview ? 'active' : ''} onClick={() => setPreview(false)}>
              Markdown
            </button>
            <button type="button" role="radio" aria-checked={preview} className={preview ? 'active' : ''} onClick={() => setPreview(true)}>
              Preview
            </button>
          </div>
          {preview ? (
            <div className="markdown card">
              <Markdown>{doc.guidelines}</Markdown>
            </div>
          ) : (
            <textarea id="protocol-guidelines" className="input" rows={8} value={doc.guidelines} onChange={(e) => setDoc({ ...doc, guidelines: e.target.value })} />
          )}
        </div>
      </div>
      {doc.criteria.map((c, i) => (
        <CriterionEditor key={i} criterion={c} onChange={(next) => setCriterion(i, next)} onRemove={() => setCriterion(i, null)} onMove={(d) => move(i, d)} />
      ))}
      <div className="row-gap">
        <button type="button" className="button" onClick={() => setDoc({ ...doc, criteria: [...doc.criteria, { ...NEW_CRITERION, id: `criterion_${doc.criteria.length + 1}` }] })}>
          Add criterion
        </button>
        <div className="spacer" />
        <button type="button" className="button ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button primary" onClick={() => save.mutate({ document: doc }, { onSuccess: onSaved })}>
          Save
        </button>
      </div>
      <ErrorNotice error={save.error} />
    </div>
  );
}

export function ProtocolsView({ selected }: { selected?: string }) {
  const list = useOp('protocol:list', {});
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState<ProtocolDocument | null>(null);
  const save = useSaveProtocol();
  const [error, setError] = useState<Error>();
  const current = list.data?.find((p) => p.key === selected) ?? list.data?.[0];
  const importFile = async (file: File) => {
    setError(undefined);
    try {
      const json = JSON.parse(await file.text()) as Record<string, unknown>;
      const { format: _format, version: _version, ...document } = json;
      const saved = await save.mutateAsync({ document });
      navigate(`/protocols/${saved.key}`);
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <Link href="/campaigns">← Campaigns</Link>
        </div>
        <div className="split">
          <nav className="side-list" aria-label="Protocols">
            {list.data?.map((p) => (
              <Link key={p.key} href={`/protocols/${p.key}`} className={p.key === current?.key ? 'active' : ''}>
                {p.name}
                <span className="small muted"> v{p.version}</span>
              </Link>
            ))}
            <IfAllowed operation="protocol:save">
              <button
                type="button"
                className="button small"
                onClick={() => setEditing({ key: 'my-protocol', name: 'My protocol', description: '', guidelines: '', criteria: [NEW_CRITERION] })}
              >
                New protocol
              </button>
              <label className="button small">
                Import JSON…
                <input type="file" hidden accept=".json" onChange={(e) => e.target.files?.[0] && void importFile(e.target.files[0])} />
              </label>
            </IfAllowed>
            <ErrorNotice error={error} />
          </nav>
          <div className="split-main">
            {editing ? (
              <ProtocolEditor
                key={editing.key}
                initial={editing}
                onCancel={() => setEditing(null)}
                onSaved={(p) => {
                  setEditing(null);
                  navigate(`/protocols/${p.key}`);
                }}
              />
            ) : current ? (
              <ProtocolDetail key={current.key} protocol={current} onEdit={(doc) => setEditing(doc)} />
            ) : null}
          </div>
        </div>
      </div>
    </div>
  );
}
