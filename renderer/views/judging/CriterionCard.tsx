import { useEffect, useRef, useState } from 'react';
import type { JudgingItem } from '../../../shared/api';
import { keyFor, questionFor, scaleValues, type Criterion } from '../../../shared/protocols';

/**
 * One criterion of the protocol: its question for this item's ambiguity type, the scale as
 * buttons with their keys, and a comment. Keyed by item and criterion, so its drafts start over
 * on each item; a value saved elsewhere (an undo) replaces them.
 */
export function CriterionCard({
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
  useEffect(() => setDraft(current?.comment ?? ''), [current?.comment]);
  useEffect(() => {
    if (criterion.scale.kind === 'text') setText(current?.value ?? '');
  }, [criterion.scale.kind, current?.value]);
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
              criterion.scale.kind === 'categorical'
                ? (criterion.scale.options.find((o) => o.value === value)?.label ?? value)
                : criterion.scale.kind === 'yesno'
                  ? value.toUpperCase()
                  : value;
            return (
              <button
                key={value}
                type="button"
                className={`choice${current?.value === value ? ' chosen' : ''}${value === 'yes' ? ' yes' : value === 'no' ? ' no' : ''}`}
                onClick={() => onDecide(current?.value === value ? null : value)}
                title={anchors[value] ?? (current?.value === value ? 'Click again to clear' : '')}
                aria-pressed={current?.value === value}
              >
                {/* A point of a rating scale is its own key: printed once. */}
                {key && key !== label ? <kbd>{key}</kbd> : null} {label}
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
