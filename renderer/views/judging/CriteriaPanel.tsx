import { TypeTag } from '../../components/bits';
import { CriterionCard } from './CriterionCard';
import type { Judging } from './useJudging';

/** The right of the judging screen: one card per criterion of the protocol, for the item on screen. */
export function CriteriaPanel({ judging }: { judging: Judging }) {
  const { queue, item, index, active, commentOpen } = judging;
  const entry = queue?.items[index];
  return (
    <aside className="judge-panel" aria-label="Criteria">
      {item && entry ? (
        <div className="small muted">
          <TypeTag type={entry.ambiguityType} /> {entry.skipped ? '· skipped before' : ''}
        </div>
      ) : null}
      {item && queue
        ? queue.protocol.criteria.map((c, i) => (
            <CriterionCard
              key={`${item.position}:${c.id}`}
              criterion={c}
              item={item}
              active={i === active}
              onActivate={() => judging.setActive(i)}
              onDecide={(value, comment) => judging.decide(c, value, comment)}
              commentOpen={commentOpen}
              progress={{ decided: queue.perCriterion[c.id] ?? 0, total: queue.total }}
              onCloseComment={() => judging.setCommentOpen(false)}
            />
          ))
        : null}
      <p className="small muted">
        Keys are printed on the buttons. <kbd>Tab</kbd> moves between criteria, <kbd>c</kbd> comments, <kbd>a</kbd> <kbd>l</kbd> <kbd>e</kbd> jump to the
        answers, the long answer and the evidence, <kbd>g</kbd> shows the guidelines, <kbd>?</kbd> lists every key.
      </p>
    </aside>
  );
}
