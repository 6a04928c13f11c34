import { memo } from 'react';
import type { JudgingQueue } from '../../../shared/api';

/** What the colours of the queue squares mean (the same colours as `.judge-strip .cell`). */
function QueueLegend() {
  const swatch = (colour: string) => (
    <span aria-hidden="true" style={{ color: colour }}>
      ■
    </span>
  );
  return (
    <span className="small muted" style={{ marginRight: 8, whiteSpace: 'nowrap', lineHeight: '10px' }}>
      {swatch('var(--ok)')} done {swatch('color-mix(in srgb, var(--accent) 40%, var(--surface-3))')} started {swatch('var(--warn)')} skipped{' '}
      {swatch('var(--surface-3)')} to do
    </span>
  );
}

/** The queue, one square per item (rendered again only when the queue or the item changes), coloured by where it stands: a click opens that item. */
export const QueueStrip = memo(function QueueStrip({
  queue,
  current,
  onOpen,
}: {
  queue: JudgingQueue | undefined;
  current: number | undefined;
  onOpen: (position: number) => void;
}) {
  return (
    <div className="judge-strip" aria-label="Queue" title="Your queue, one square per item: click one to open it">
      <QueueLegend />
      {queue?.items.map((i, n) => (
        <button
          key={i.position}
          type="button"
          className={`cell${i.done ? ' done' : i.skipped ? ' skipped' : i.decided ? ' partial' : ''}${i.position === current ? ' current' : ''}`}
          title={`${n + 1}. ${i.question}${i.done ? ' (done)' : i.skipped ? ' (skipped)' : ''}`}
          onClick={() => onOpen(i.position)}
        />
      ))}
    </div>
  );
});
