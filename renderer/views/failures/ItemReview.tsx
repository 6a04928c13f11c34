import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { FailureItemView, InstanceFlagView, ItemTagView } from '../../../shared/api';
import { OpButton } from '../../access';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';

/** The failure view's review panels: the item's failure tags (who set each, and when) and review flags on its instance. */

export function Tags({ view, who, tagOpen, setTagOpen }: { view: FailureItemView; who: string; tagOpen: boolean; setTagOpen: (open: boolean) => void }) {
  const taxonomy = useOp('failure-tag:list', {});
  const add = useOpMutation('failure-tag:add');
  const remove = useOpMutation('failure-tag:remove');
  const [tag, setTag] = useState('');
  const select = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (tagOpen) select.current?.focus();
  }, [tagOpen]);
  const current = view.tags.filter((t) => !t.removedAt);
  const past = view.tags.filter((t) => t.removedAt);
  const submit = () => {
    if (!tag || !who) return;
    add.mutate({ item: view.item.id, tag, who }, { onSuccess: () => setTagOpen(false) });
  };
  return (
    <section className="card" data-testid="tags">
      <div className="card-head">
        <h2>Tags</h2>
        <span className="spacer" />
        <OpButton operation="failure-tag:add" className="button small" onClick={() => setTagOpen(!tagOpen)}>
          Tag <kbd>t</kbd>
        </OpButton>
      </div>
      {current.length === 0 ? <div className="small muted">No tags.</div> : null}
      {current.map((t: ItemTagView) => (
        <div key={`${t.key}-${t.createdAt}`} className="small tag-line" data-testid="item-tag">
          <span className="chip">{t.label}</span> <span className="muted">{t.source === 'rule' ? `suggested by ${t.who}` : `by ${t.who}`} · {t.createdAt.slice(0, 16).replace('T', ' ')}</span>
          {t.note ? <span className="muted"> · {t.note}</span> : null}
          <button type="button" className="button ghost small" disabled={!who} title={who ? 'Take the tag off' : 'Give your name first'} onClick={() => remove.mutate({ item: view.item.id, tag: t.key, who })}>
            ✕
          </button>
        </div>
      ))}
      {tagOpen ? (
        <form
          className="row-gap small"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <select ref={select} className="input" aria-label="tag to add" value={tag} onChange={(e) => setTag(e.target.value)} onKeyDown={(e) => {
              if (e.key === 'Escape') setTagOpen(false);
              if (e.key === 'Enter') {
                e.preventDefault();
                submit();
              }
            }}>
            <option value="">choose a tag…</option>
            {(taxonomy.data ?? []).map((t) => (
              <option key={t.key} value={t.key}>
                {t.label}
              </option>
            ))}
          </select>
          <button type="submit" className="button small primary" disabled={!tag || !who}>
            Add
          </button>
          {!who ? <span className="flag-bad">give your name above first</span> : null}
        </form>
      ) : null}
      <ErrorNotice error={add.error ?? remove.error} />
      {past.length ? (
        <details className="small">
          <summary className="muted">{past.length} removed</summary>
          {past.map((t) => (
            <div key={`${t.key}-${t.createdAt}`} className="muted">
              {t.label}: set by {t.who}, taken off by {t.removedBy} · {t.removedAt?.slice(0, 16).replace('T', ' ')}
            </div>
          ))}
        </details>
      ) : null}
    </section>
  );
}

export function Flags({ view, who, flagOpen, setFlagOpen }: { view: FailureItemView; who: string; flagOpen: boolean; setFlagOpen: (open: boolean) => void }) {
  const flag = useOpMutation('instance-flag:add', { onSuccess: () => setFlagOpen(false) });
  const [reason, setReason] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (flagOpen) input.current?.focus();
  }, [flagOpen]);
  const instance = view.item.instanceId;
  return (
    <section className="card" data-testid="flags">
      <div className="card-head">
        <h2>Review</h2>
        <span className="spacer" />
        {instance !== null ? (
          <>
            <Link href={`/instances/${instance}`} className="button small">
              Open instance <kbd>o</kbd>
            </Link>
            <OpButton operation="instance-flag:add" className="button small" onClick={() => setFlagOpen(!flagOpen)}>
              Flag for review <kbd>f</kbd>
            </OpButton>
          </>
        ) : (
          <span className="small muted">This item has no instance in the database.</span>
        )}
      </div>
      {view.flags.map((f: InstanceFlagView) => (
        <div key={f.id} className="small" data-testid="flag">
          <span className={f.resolvedAt ? 'muted' : 'flag-bad'}>⚑</span> {f.reason} <span className="muted">— {f.who}{f.resolvedAt ? `, resolved by ${f.resolvedBy}` : ''}</span>
        </div>
      ))}
      {flagOpen && instance !== null ? (
        <form
          className="row-gap small"
          onSubmit={(e) => {
            e.preventDefault();
            if (reason.trim() && who) flag.mutate({ instance, item: view.item.id, reason, who });
          }}
        >
          <input ref={input} className="input grow" aria-label="reason" placeholder="What is wrong with the benchmark item?" value={reason} onChange={(e) => setReason(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setFlagOpen(false)} />
          <button type="submit" className="button small primary" disabled={!reason.trim() || !who}>
            Flag
          </button>
        </form>
      ) : null}
      <ErrorNotice error={flag.error} />
    </section>
  );
}

