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

type Entry = JudgingQueue['items'][number];

/** One square: rendered again only when its own item changes (a decision touches one square of hundreds). */
const Cell = memo(function Cell({ entry, n, current, onOpen }: { entry: Entry; n: number; current: boolean; onOpen: (position: number) => void }) {
  const state = entry.done ? ' done' : entry.skipped ? ' skipped' : entry.decided ? ' partial' : '';
  return (
    <button
      type="button"
      className={`cell${state}${current ? ' current' : ''}`}
      title={`${n + 1}. ${entry.question}${entry.done ? ' (done)' : entry.skipped ? ' (skipped)' : ''}`}
      onClick={() => onOpen(entry.position)}
    />
  );
});

/** The queue, one square per item, coloured by where it stands: a click opens that item. `onOpen` must keep its identity. */
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
      {queue?.items.map((entry, n) => <Cell key={entry.position} entry={entry} n={n} current={entry.position === current} onOpen={onOpen} />)}
    </div>
  );
});
