import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { FailureItemView } from '../../../shared/api';
import { methodLabel } from '../../../shared/eval/labels';
import { useAccess } from '../../access';
import { ShortcutSheet } from '../../components/CommandPalette';
import { ErrorNotice } from '../../components/bits';
import { useKeys } from '../../hooks';
import { useOp } from '../../query';
import { AnswerSide, GoldSide, Metrics, Retrieval } from './ItemAnswer';
import { Flags, Tags } from './ItemReview';
import { Trace } from './ItemTrace';
import { failureInput, failureSearch, parseFailureState } from './params';

/**
 * The failure view of one evaluation item: the gold interpretations beside the method's long
 * answer with the verdict (covered, partial, collapsed, missed), retrieved passages against the
 * gold evidence, the per-item metrics and judge scores, tags and review flags, and the trace step
 * by step. Panels live in ItemAnswer, ItemReview and ItemTrace; this file is the page and its keys.
 */

const SHORTCUTS: [string, string][] = [
  ['j', 'next item'],
  ['k', 'previous item'],
  ['t', 'tag this item'],
  ['f', "flag the item's instance for review"],
  ['o', 'open the instance'],
  ['u', 'back to the table'],
  ['?', 'this sheet'],
];

/** Who is acting (tags and flags carry a name); remembered on this machine. */
function useWho(): [string, (name: string) => void] {
  const [who, setWho] = useState(() => localStorage.getItem('awb.who') ?? '');
  return [who, (name: string) => {
    localStorage.setItem('awb.who', name);
    setWho(name);
  }];
}

/** The neighbours of an item in the filtered list the user came from (falls back to the run's order). */
function useNeighbours(run: number, id: number, view: FailureItemView | undefined): { previous: number | null; next: number | null } {
  const search = useSearch();
  const filtered = search.length > 1;
  const list = useOp('failure:list', filtered ? { ...failureInput(run, parseFailureState(search)), limit: 500, count: false } : null);
  if (filtered && list.data) {
    const ids = list.data.rows.map((r) => r.id);
    const at = ids.indexOf(id);
    if (at >= 0) return { previous: ids[at - 1] ?? null, next: ids[at + 1] ?? null };
  }
  return { previous: view?.previous ?? null, next: view?.next ?? null };
}

export function FailureItem({ run, id }: { run: number; id: number }) {
  const result = useOp('failure:item', { id });
  const view = result.data;
  const search = useSearch();
  const [, navigate] = useLocation();
  const [who, setWho] = useWho();
  const [sheet, setSheet] = useState(false);
  const [tagOpen, setTagOpen] = useState(false);
  const [flagOpen, setFlagOpen] = useState(false);
  const access = useAccess();
  const { previous, next } = useNeighbours(run, id, view);
  const suffix = failureSearch(parseFailureState(search));
  const go = (item: number | null) => {
    if (item !== null) navigate(`/evaluation/${run}/items/${item}${suffix}`);
  };
  useKeys(
    (event) => {
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key === 'Escape') {
        setTagOpen(false);
        setFlagOpen(false);
        return;
      }
      const actions: Record<string, () => void> = {
        j: () => go(next),
        k: () => go(previous),
        t: () => access.may('failure-tag:add').allowed && setTagOpen(true),
        f: () => access.may('instance-flag:add').allowed && setFlagOpen(true),
        o: () => view?.item.instanceId != null && navigate(`/instances/${view.item.instanceId}`),
        u: () => navigate(`/evaluation/${run}/items${suffix}`),
        '?': () => setSheet(true),
      };
      const action = actions[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    },
    !sheet,
  );
  return (
    <div className="page failure-item" data-testid="failure-item" data-item={view?.item.id ?? ''}>
      <div className="page-inner">
        <div className="page-head">
          <Link href={`/evaluation/${run}/items${suffix}`} className="small">
            ← items of run {run}
          </Link>
          <span className="spacer" />
          <label className="small">
            You: <input className="input" aria-label="your name" placeholder="your name" value={who} onChange={(e) => setWho(e.target.value)} />
          </label>
          <button type="button" className="button small" data-testid="previous-item" disabled={previous === null} onClick={() => go(previous)}>
            ← <kbd>k</kbd>
          </button>
          <button type="button" className="button small" data-testid="next-item" disabled={next === null} onClick={() => go(next)}>
            <kbd>j</kbd> →
          </button>
          <button type="button" className="button small ghost" onClick={() => setSheet(true)}>
            <kbd>?</kbd>
          </button>
        </div>
        <ErrorNotice error={result.error} />
        {view ? (
          <>
            <div className="item-title">
              <h1 data-testid="item-question">{view.item.question}</h1>
              <div className="small muted">
                <span className={`tag tag-${view.item.ambiguityType}`}>{view.item.ambiguityType}</span> item {view.item.position + 1} of {view.run.total} · {methodLabel(view.run.method)} × {view.run.model} ·{' '}
                <span className="mono">{view.item.key}</span>
              </div>
            </div>
            <div className="failure-columns">
              <GoldSide view={view} />
              <AnswerSide view={view} />
            </div>
            <div className="failure-columns">
              <Metrics view={view} />
              <div className="stack">
                <Tags view={view} who={who} tagOpen={tagOpen} setTagOpen={setTagOpen} />
                <Flags view={view} who={who} flagOpen={flagOpen} setFlagOpen={setFlagOpen} />
              </div>
            </div>
            <Retrieval view={view} />
            <Trace steps={view.item.steps} calls={view.item.trace} />
          </>
        ) : result.isLoading ? (
          <div className="empty">Loading…</div>
        ) : null}
      </div>
      {sheet ? <ShortcutSheet title="Failure view" shortcuts={SHORTCUTS} onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
