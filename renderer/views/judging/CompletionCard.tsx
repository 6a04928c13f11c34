import { Link } from 'wouter';
import type { JudgingQueue } from '../../../shared/api';
import { plural } from '../../components/bits';

type Item = JudgingQueue['items'][number];

function ItemLinks({ title, items, all, onOpen, testId }: { title: string; items: Item[]; all: Item[]; onOpen: (position: number) => void; testId: string }) {
  if (!items.length) return null;
  return (
    <section data-testid={testId}>
      <h3>{title}</h3>
      <ul className="plain-list">
        {items.map((i) => (
          <li key={i.position}>
            <button type="button" className="link-button" onClick={() => onOpen(i.position)}>
              item {all.indexOf(i) + 1}
            </button>{' '}
            <span className="muted">{i.question}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The end of the queue: what was done, and what to do next. Skipped and commented items are one
 * click away for a second look; a campaign leads back to its page; a pack says where its results
 * are and what to do with them.
 */
export function CompletionCard({ queue, onOpen }: { queue: JudgingQueue; onOpen: (position: number) => void }) {
  const skipped = queue.items.filter((i) => i.skipped && !i.done);
  const commented = queue.items.filter((i) => i.commented);
  return (
    <section className="card completion" data-testid="completion">
      <h2>{skipped.length ? `${queue.done} of ${queue.total} items judged; ${plural(skipped.length, 'item')} skipped` : `All ${plural(queue.total, 'item')} judged. Thank you!`}</h2>
      <p className="muted">
        Every decision is saved{queue.offline ? ' beside the pack' : ''}. <kbd>j</kbd> <kbd>k</kbd> or a square of the queue above go back over any item; <kbd>u</kbd> undoes the last decision.
      </p>
      <ItemLinks title="Skipped, to look at again" items={skipped} all={queue.items} onOpen={onOpen} testId="completion-skipped" />
      <ItemLinks title="With your comments" items={commented} all={queue.items} onOpen={onOpen} testId="completion-commented" />
      {queue.resultsFile ? (
        <section data-testid="completion-results">
          <h3>Your results</h3>
          <p>
            Saved in <span className="mono">{queue.resultsFile}</span>. Send that file to whoever gave you the pack: they import it on the campaign's Files tab (Import
            results). You can close this window.
          </p>
        </section>
      ) : null}
      {queue.campaign.id !== null ? (
        <div>
          <Link href={`/campaigns/${queue.campaign.id}`} className="button primary">
            Back to the campaign
          </Link>
        </div>
      ) : null}
    </section>
  );
}
