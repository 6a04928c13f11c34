import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import { Link, useLocation, useSearch } from 'wouter';
import type { JudgingItem, JudgingQueue, JudgingSession } from '../../shared/api';
import { keyFor, questionFor, scaleValues, valueForKey, type Criterion } from '../../shared/protocols';
import { call } from '../api';
import { ShortcutSheet } from '../components/CommandPalette';
import { ErrorNotice, ProgressBar, TypeTag } from '../components/bits';
import { InstanceBody } from './InstanceView';

/**
 * The judging screen: the instance side by side on the left, the protocol's criteria on the
 * right, every decision by keyboard. A decision is on disk (committed to the database, or
 * appended and flushed to the pack's results file) before the next item shows. Decisions typed
 * faster than they save are queued in order, never dropped.
 */

/** The instance side re-renders only when the item changes, not on every decision. */
const InstanceSide = memo(InstanceBody);

const JUDGING_SHORTCUTS: [string, string][] = [
  ['Y  1', 'yes (on a yes/no criterion)'],
  ['N  2', 'no'],
  ['0 … 9', 'a point on a rating scale, an option of a choice'],
  ['Tab  Shift Tab', 'next / previous criterion'],
  ['c', 'comment on the current criterion (Ctrl Enter saves)'],
  ['j  →  ↓', 'next item'],
  ['k  ←  ↑', 'previous item'],
  ['u  Ctrl Z', 'undo the last decision'],
  ['s', 'skip this item for now'],
  ['g  h', 'open or close the guidelines (judging keys keep working beside them)'],
  ['?', 'this sheet'],
];

function sessionFromSearch(search: string): JudgingSession | null {
  const params = new URLSearchParams(search);
  const pack = params.get('pack');
  if (pack) return { pack };
  const campaignId = Number(params.get('campaign'));
  const annotator = params.get('annotator');
  return Number.isInteger(campaignId) && campaignId > 0 && annotator ? { campaignId, annotator } : null;
}

function sessionSearch(session: JudgingSession): string {
  return 'pack' in session ? `pack=${encodeURIComponent(session.pack)}` : `campaign=${session.campaignId}&annotator=${encodeURIComponent(session.annotator)}`;
}

/** Background work (prefetch, counts) waits until the new item is on screen. */
function afterPaint(work: () => void): void {
  requestAnimationFrame(() => setTimeout(work, 0));
}

const decided = (item: JudgingItem, criterion: Criterion) => (item.values[criterion.id]?.value ?? null) !== null;

function formatSeconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

function ItemTimer({ since, before }: { since: number; before: number }) {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setElapsed(performance.now() - since), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return (
    <span className="muted" title="Time on this item (recorded with each decision)" data-testid="item-timer">
      {formatSeconds(before + elapsed)}
    </span>
  );
}

function CriterionCard({
  criterion,
  item,
  active,
  onActivate,
  onDecide,
  commentOpen,
  onCloseComment,
  progress,
}: {
  /** How many items of the queue have this criterion decided. */
  progress: { decided: number; total: number };
  criterion: Criterion;
  item: JudgingItem;
  active: boolean;
  onActivate: () => void;
  onDecide: (value: string | null, comment?: string) => void;
  commentOpen: boolean;
  onCloseComment: () => void;
}) {
  const current = item.values[criterion.id];
  const [draft, setDraft] = useState(current?.comment ?? '');
  const [text, setText] = useState(criterion.scale.kind === 'text' ? (current?.value ?? '') : '');
  const commentRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => setDraft(current?.comment ?? ''), [current?.comment, item.position]);
  useEffect(() => {
    if (criterion.scale.kind === 'text') setText(current?.value ?? '');
  }, [criterion.scale.kind, current?.value, item.position]);
  useEffect(() => {
    if (commentOpen && active) commentRef.current?.focus();
  }, [commentOpen, active]);

  const saveComment = () => {
    if (draft !== (current?.comment ?? '')) onDecide(current?.value ?? null, draft);
    onCloseComment();
  };
  const saveText = () => {
    const value = text.trim() ? text : null;
    if (value !== (current?.value ?? null)) onDecide(value);
  };
  const anchors = criterion.scale.kind === 'ordinal' ? criterion.scale.anchors : {};
  return (
    <section
      className={`criterion${active ? ' active' : ''}${current?.value != null ? ' decided' : ''}`}
      data-testid="criterion"
      data-criterion={criterion.id}
      onMouseDown={onActivate}
      aria-current={active}
    >
      <header>
        <span className="label">{criterion.label}</span>
        {!criterion.required || criterion.scale.kind === 'text' ? <span className="muted small">optional</span> : null}
        {current?.value != null ? <span className="flag-ok small">✓ saved</span> : null}
        <span className="per-criterion small" title={`This criterion is decided on ${progress.decided} of the ${progress.total} items in your queue`}>
          {progress.decided}/{progress.total} items
        </span>
      </header>
      <p className="question">{questionFor(criterion, item.instance.ambiguityType)}</p>
      {criterion.scale.kind === 'text' ? (
        <textarea
          className="input"
          rows={3}
          value={text}
          placeholder="Write here; saved when you leave the field (or Ctrl Enter)"
          onChange={(e) => setText(e.target.value)}
          onBlur={saveText}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              (e.target as HTMLTextAreaElement).blur();
            }
          }}
        />
      ) : (
        <div className={`choices ${criterion.scale.kind}`}>
          {scaleValues(criterion.scale).map((value) => {
            const key = keyFor(criterion.scale, value);
            const label =
              criterion.scale.kind === 'categorical' ? (criterion.scale.options.find((o) => o.value === value)?.label ?? value) : criterion.scale.kind === 'yesno' ? value.toUpperCase() : value;
            return (
              <button
                key={value}
                type="button"
                className={`choice${current?.value === value ? ' chosen' : ''}${value === 'yes' ? ' yes' : value === 'no' ? ' no' : ''}`}
                onClick={() => onDecide(current?.value === value ? null : value)}
                title={anchors[value] ?? (current?.value === value ? 'Click again to clear' : '')}
                aria-pressed={current?.value === value}
              >
                {key ? <kbd>{key}</kbd> : null} {label}
              </button>
            );
          })}
        </div>
      )}
      {Object.keys(anchors).length ? (
        <div className="anchors small muted">
          {Object.entries(anchors).map(([point, meaning]) => (
            <span key={point}>
              {point} = {meaning}
            </span>
          ))}
        </div>
      ) : null}
      {criterion.help ? <p className="small muted">{criterion.help}</p> : null}
      {criterion.scale.kind !== 'text' ? (
        commentOpen && active ? (
          <textarea
            ref={commentRef}
            className="input"
            rows={2}
            value={draft}
            placeholder="Comment (Ctrl Enter or leaving the field saves; Esc cancels)"
            onChange={(e) => setDraft(e.target.value)}
            onBlur={saveComment}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                (e.target as HTMLTextAreaElement).blur();
              } else if (e.key === 'Escape') {
                e.preventDefault();
                setDraft(current?.comment ?? '');
                onCloseComment();
              }
            }}
          />
        ) : current?.comment ? (
          <p className="comment small">“{current.comment}”</p>
        ) : null
      ) : null}
    </section>
  );
}

export function JudgingView() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const session = useMemo(() => sessionFromSearch(search), [search]);
  const sessionKey = session ? sessionSearch(session) : '';
  const position = Number(new URLSearchParams(search).get('at') ?? NaN);

  const [queue, setQueueState] = useState<JudgingQueue | null>(null);
  const queueRef = useRef<JudgingQueue | null>(null);
  const setQueue = useCallback((next: JudgingQueue | null) => {
    queueRef.current = next;
    setQueueState(next);
  }, []);
  const [item, setItemState] = useState<JudgingItem | null>(null);
  const [active, setActiveState] = useState(0);
  const [error, setError] = useState<Error>();
  const [notice, setNotice] = useState<string | null>(null);
  const [saving, setSaving] = useState(0);
  const [guidelines, setGuidelines] = useState(false);
  const [sheet, setSheet] = useState(false);
  const [commentOpen, setCommentOpen] = useState(false);

  // Refs mirror the state so that queued key presses act on the latest values.
  const itemRef = useRef<JudgingItem | null>(null);
  const activeRef = useRef(0);
  const cache = useRef(new Map<number, JudgingItem>());
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const pending = useRef(0);
  const shownAt = useRef(0);
  const setItem = useCallback((next: JudgingItem | null) => {
    itemRef.current = next;
    setItemState(next);
  }, []);
  const setActive = useCallback((index: number) => {
    activeRef.current = index;
    setActiveState(index);
  }, []);

  const criteria = useMemo(() => queue?.protocol.criteria ?? [], [queue?.protocol]);
  const required = useMemo(() => criteria.filter((c) => c.required && c.scale.kind !== 'text'), [criteria]);
  const positions = useMemo(() => queue?.items.map((i) => i.position) ?? [], [queue]);

  const refreshQueue = useCallback(async () => {
    if (!session) return;
    try {
      setQueue(await call('judging:queue', { session }));
    } catch (e) {
      setError(e as Error);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionKey]);

  const goTo = useCallback(
    (target: number) => {
      if (!session) return;
      navigate(`/judge?${sessionSearch(session)}&at=${target}`, { replace: true });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [navigate, sessionKey],
  );

  const firstUndecided = useCallback(
    (it: JudgingItem) => {
      const index = criteria.findIndex((c) => c.scale.kind !== 'text' && !decided(it, c));
      return index === -1 ? 0 : index;
    },
    [criteria],
  );

  /** Loads (or takes from the prefetch cache) the item at a position, then prefetches the next. */
  const show = useCallback(
    async (target: number, fresh = false) => {
      if (!session) return;
      let next = fresh ? undefined : cache.current.get(target);
      if (!next) {
        try {
          next = await call('judging:item', { session, position: target });
        } catch (e) {
          setError(e as Error);
          return;
        }
        cache.current.set(target, next);
      }
      shownAt.current = performance.now();
      setItem(next);
      setActive(firstUndecided(next));
      setCommentOpen(false);
      const after = positions[positions.indexOf(target) + 1];
      if (after !== undefined && !cache.current.has(after)) {
        afterPaint(() => call('judging:item', { session, position: after }).then((prefetched) => cache.current.set(after, prefetched), () => undefined));
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sessionKey, positions, firstUndecided, setItem, setActive],
  );

  // A new session: its queue, then the first item not done (or the one in the URL).
  useEffect(() => {
    cache.current.clear();
    setItem(null);
    setQueue(null);
    setError(undefined);
    if (!session) return;
    call('judging:queue', { session }).then((q) => {
      setQueue(q);
      if (!Number.isInteger(position)) {
        const start = q.items.find((i) => !i.done && !i.skipped) ?? q.items.find((i) => !i.done) ?? q.items[0];
        if (start) goTo(start.position);
      }
    }, setError);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionKey]);

  useEffect(() => {
    if (queue && Number.isInteger(position) && itemRef.current?.position !== position) void show(position);
  }, [queue, position, show]);

  /** After an item is complete: the next one not done, after this one, then from the start. */
  const advance = useCallback(
    (from: number, latest: JudgingQueue | null) => {
      const items = latest?.items ?? [];
      const index = items.findIndex((i) => i.position === from);
      const later = [...items.slice(index + 1), ...items.slice(0, Math.max(0, index))].find((i) => !i.done && i.position !== from);
      if (later) {
        void show(later.position).then(() => goTo(later.position));
      } else {
        setNotice(`All ${items.length} items are judged. Thank you!`);
      }
    },
    [show, goTo],
  );

  const enqueue = useCallback((work: () => Promise<void>) => {
    pending.current++;
    setSaving((n) => n + 1);
    chain.current = chain.current
      .then(work)
      .catch((e: Error) => setError(e))
      .finally(() => {
        pending.current--;
        setSaving((n) => n - 1);
      });
  }, []);

  const decide = useCallback(
    (criterion: Criterion, value: string | null, comment?: string) => {
      const current = itemRef.current;
      if (!current || !session) return;
      const instanceId = current.instance.id;
      const now = performance.now();
      const itemMs = now - shownAt.current;
      shownAt.current = now;
      const newComment = comment ?? current.values[criterion.id]?.comment ?? '';
      // Shown at once; on disk before anything moves on.
      const optimistic: JudgingItem = { ...current, values: { ...current.values, [criterion.id]: { value, comment: newComment } } };
      setItem(optimistic);
      const nextIndex = criteria.findIndex((c, i) => i > criteria.indexOf(criterion) && c.scale.kind !== 'text' && !decided(optimistic, c));
      const complete = required.every((c) => decided(optimistic, c));
      if (comment === undefined && value !== null && nextIndex !== -1) setActive(nextIndex);
      setError(undefined);
      enqueue(async () => {
        try {
          const saved = await call('judging:decide', { session, instanceId, criterion: criterion.id, value, comment: newComment, itemMs });
          cache.current.set(saved.position, saved);
          const last = pending.current === 1;
          const moveOn = complete && comment === undefined && value !== null && last && itemRef.current?.position === saved.position;
          // The optimistic values already show what was saved; only a moving-on render is needed.
          if (itemRef.current?.position === saved.position && last && !moveOn) setItem({ ...saved, instance: itemRef.current.instance });
          if (moveOn) {
            // Move on at once, from the queue as it stands with this item done; the counts
            // catch up from the server just after.
            setNotice(null);
            advance(saved.position, queueRef.current && { ...queueRef.current, items: queueRef.current.items.map((i) => (i.position === saved.position ? { ...i, done: true } : i)) });
          }
          if (last) afterPaint(() => void refreshQueue());
        } catch (e) {
          // What is on disk wins: reload the item.
          cache.current.delete(current.position);
          if (itemRef.current?.position === current.position) void show(current.position, true);
          throw e;
        }
      });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sessionKey, criteria, required, enqueue, advance, show, setItem, setActive, refreshQueue],
  );

  const undo = useCallback(() => {
    if (!session) return;
    enqueue(async () => {
      const undone = await call('judging:undo', { session });
      if (!undone) {
        setNotice('Nothing to undo.');
        return;
      }
      cache.current.delete(undone.position);
      await show(undone.position, true);
      goTo(undone.position);
      const index = criteria.findIndex((c) => c.id === undone.criterion);
      if (index !== -1) setActive(index);
      setNotice(`Undone: ${criteria[index]?.label ?? undone.criterion} on item ${positions.indexOf(undone.position) + 1}.`);
      await refreshQueue();
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionKey, enqueue, show, goTo, criteria, positions, refreshQueue, setActive]);

  const skip = useCallback(() => {
    const current = itemRef.current;
    if (!current || !session) return;
    const itemMs = performance.now() - shownAt.current;
    enqueue(async () => {
      await call('judging:skip', { session, instanceId: current.instance.id, itemMs });
      const latest = await call('judging:queue', { session });
      setQueue(latest);
      setNotice(`Skipped item ${positions.indexOf(current.position) + 1}; it stays in the queue.`);
      const index = latest.items.findIndex((i) => i.position === current.position);
      const next = latest.items.slice(index + 1).find((i) => !i.done) ?? latest.items.find((i) => !i.done && i.position !== current.position);
      if (next) {
        await show(next.position);
        goTo(next.position);
      }
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionKey, enqueue, show, goTo, positions]);

  const step = useCallback(
    (delta: number) => {
      const current = itemRef.current;
      if (!current) return;
      const target = positions[positions.indexOf(current.position) + delta];
      if (target === undefined) return;
      setNotice(null);
      // The next item shows only once every decision made so far is saved.
      void chain.current.then(() => show(target)).then(() => goTo(target));
    },
    [positions, show, goTo],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT')) return;
      if (sheet) return;
      if (event.altKey) return;
      // The guidelines sit beside the criteria, so every judging key keeps working while they are open.
      if ((event.key === 'g' || event.key === 'h') && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        setGuidelines((open) => !open);
        return;
      }
      const it = itemRef.current;
      if (!it) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'z') {
        event.preventDefault();
        undo();
        return;
      }
      if (event.ctrlKey || event.metaKey) return;
      const criterion = criteria[activeRef.current];
      const key = event.key;
      if (key === 'Tab') {
        const n = criteria.length;
        setActive((activeRef.current + (event.shiftKey ? n - 1 : 1)) % n);
      } else if (key === 'j' || key === 'ArrowDown' || key === 'ArrowRight') step(1);
      else if (key === 'k' || key === 'ArrowUp' || key === 'ArrowLeft') step(-1);
      else if (key === 'u') undo();
      else if (key === 's') skip();
      else if (key === '?') setSheet(true);
      else if (key === 'c' && criterion && criterion.scale.kind !== 'text') setCommentOpen(true);
      else if (criterion && criterion.scale.kind !== 'text') {
        const value = valueForKey(criterion.scale, key);
        if (value === null) return;
        decide(criterion, value);
      } else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [criteria, decide, undo, skip, step, sheet, setActive]);

  if (!session) {
    return (
      <div className="page">
        <div className="page-inner">
          <div className="notice bad">Nothing to judge: open a campaign and pick an annotator, or open a pack.</div>
          <Link href="/campaigns">Campaigns</Link>
        </div>
      </div>
    );
  }

  const index = item ? positions.indexOf(item.position) : -1;
  const entry = queue?.items[index];
  return (
    <div className="judge" data-testid="judging">
      <div className="judge-bar">
        <div className="judge-title">
          <strong>{queue?.campaign.name ?? '…'}</strong>
          <span className="muted">judged by {queue?.annotator}</span>
          {queue?.offline ? <span className="badge" title="Working from a pack file: no database, no network">offline pack</span> : null}
          {queue?.campaign.blind ? <span className="badge" title="Other annotators' judgments and the LLM filter votes are hidden">blind</span> : null}
        </div>
        <div className="judge-progress" data-testid="judge-progress">
          <span>
            <strong>{queue?.done ?? 0}</strong> / {queue?.total ?? 0} done
          </span>
          <ProgressBar fraction={queue && queue.total ? queue.done / queue.total : 0} />
        </div>
        <div className="judge-actions">
          <span className="muted" data-testid="item-position">
            item {index + 1} of {positions.length}
          </span>
          {item ? <ItemTimer key={item.position} since={shownAt.current} before={item.timeMs} /> : null}
          <span className={`save-state small ${saving ? 'saving' : 'saved'}`} data-testid="save-state" aria-live="polite">
            {saving ? 'saving…' : 'all saved'}
          </span>
          <button type="button" className="button small" onClick={() => step(-1)} disabled={index <= 0}>
            <kbd>k</kbd> previous
          </button>
          <button type="button" className="button small" onClick={() => step(1)} disabled={index === -1 || index >= positions.length - 1}>
            next <kbd>j</kbd>
          </button>
          <button type="button" className="button small" onClick={skip}>
            skip <kbd>s</kbd>
          </button>
          <button type="button" className="button small" onClick={undo}>
            undo <kbd>u</kbd>
          </button>
          <button type="button" className="button small" aria-pressed={guidelines} onClick={() => setGuidelines(!guidelines)} title="Open or close the guidelines (g or h)">
            guidelines <kbd>g</kbd>
          </button>
          <button type="button" className="button small ghost" onClick={() => setSheet(true)}>
            <kbd>?</kbd>
          </button>
        </div>
      </div>
      <div className="judge-strip" aria-label="Queue" title="Your queue, one square per item: click one to open it">
        <QueueLegend />
        {queue?.items.map((i, n) => (
          <button
            key={i.position}
            type="button"
            className={`cell${i.done ? ' done' : i.skipped ? ' skipped' : i.decided ? ' partial' : ''}${i.position === item?.position ? ' current' : ''}`}
            title={`${n + 1}. ${i.question}${i.done ? ' (done)' : i.skipped ? ' (skipped)' : ''}`}
            onClick={() => void show(i.position).then(() => goTo(i.position))}
          />
        ))}
      </div>
      {notice ? (
        <div className="notice ok judge-notice" data-testid="judge-notice">
          {notice}
        </div>
      ) : null}
      <ErrorNotice error={error} />
      {/* Open guidelines take a column between the instance and the criteria, so one can judge while reading them. */}
      <div className="judge-body" style={guidelines ? { gridTemplateColumns: 'minmax(0, 1fr) minmax(280px, 30%) 380px' } : undefined}>
        <div className="judge-instance" data-testid="judge-instance" data-position={item?.position ?? ''}>
          {item ? <InstanceSide detail={item.instance} linkBaseQuestion={!queue?.offline} /> : <div className="empty">Loading…</div>}
        </div>
        {guidelines && queue ? (
          <div className="judge-panel" role="dialog" aria-modal="false" aria-label="Guidelines" data-testid="guidelines">
            <header className="card-head">
              <h2>{queue.protocol.name}: guidelines</h2>
              <div className="spacer" />
              <button type="button" className="button small ghost" onClick={() => setGuidelines(false)}>
                close <kbd>g</kbd>
              </button>
            </header>
            <div className="markdown">
              <Markdown>{queue.protocol.guidelines || '_This protocol has no guidelines._'}</Markdown>
              {criteria.map((c) => (
                <section key={c.id}>
                  <h3>{c.label}</h3>
                  <p>{c.question}</p>
                  {c.help ? <p className="muted">{c.help}</p> : null}
                </section>
              ))}
            </div>
          </div>
        ) : null}
        <aside className="judge-panel" aria-label="Criteria">
          {item && entry ? (
            <div className="small muted">
              <TypeTag type={entry.ambiguityType} /> {entry.skipped ? '· skipped before' : ''}
            </div>
          ) : null}
          {item
            ? criteria.map((c, i) => (
                <CriterionCard
                  key={`${item.position}:${c.id}`}
                  criterion={c}
                  item={item}
                  active={i === active}
                  onActivate={() => setActive(i)}
                  onDecide={(value, comment) => decide(c, value, comment)}
                  commentOpen={commentOpen}
                  progress={{ decided: queue?.perCriterion[c.id] ?? 0, total: queue?.total ?? 0 }}
                  onCloseComment={() => setCommentOpen(false)}
                />
              ))
            : null}
          <p className="small muted">
            Keys are printed on the buttons. <kbd>Tab</kbd> moves between criteria, <kbd>c</kbd> comments, <kbd>g</kbd> shows the guidelines, <kbd>?</kbd> lists every
            key.
          </p>
        </aside>
      </div>
      {guidelines && !sheet ? <EscapeCloser onClose={() => setGuidelines(false)} /> : null}
      {sheet ? <ShortcutSheet title="Judging keys" shortcuts={JUDGING_SHORTCUTS} onClose={() => setSheet(false)} /> : null}
    </div>
  );
}

/** What the colours of the queue squares mean (the same colours as `.judge-strip .cell`). */
function QueueLegend() {
  const swatch = (colour: string) => <span aria-hidden="true" style={{ color: colour }}>■</span>;
  return (
    <span className="small muted" style={{ marginRight: 8, whiteSpace: 'nowrap', lineHeight: '10px' }}>
      {swatch('var(--ok)')} done {swatch('color-mix(in srgb, var(--accent) 40%, var(--surface-3))')} started {swatch('var(--warn)')} skipped {swatch('var(--surface-3)')} to do
    </span>
  );
}

function EscapeCloser({ onClose }: { onClose: () => void }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // Esc in a comment field cancels the comment, and leaves the guidelines open.
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) return;
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return null;
}
