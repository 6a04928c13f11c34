import { useEffect, useState } from 'react';
import { ProgressBar } from '../../components/bits';
import { useUnsaved } from './useDecisions';
import type { Judging } from './useJudging';

function formatSeconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Time on this item: what earlier visits recorded, plus this one (keyed by item, so it starts with it). */
function ItemTimer({ before }: { before: number }) {
  const [start] = useState(() => performance.now());
  const [recorded] = useState(before);
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setElapsed(performance.now() - start), 1000);
    return () => clearInterval(timer);
  }, [start]);
  return (
    <span className="muted" title="Time on this item (recorded with each decision)" data-testid="item-timer">
      {formatSeconds(recorded + elapsed)}
    </span>
  );
}

/** Whether every decision is on disk (on its own, so the screen does not render again for it). */
function SaveState() {
  const unsaved = useUnsaved();
  return (
    <span className={`save-state small ${unsaved ? 'saving' : 'saved'}`} data-testid="save-state" aria-live="polite">
      {unsaved ? 'saving…' : 'all saved'}
    </span>
  );
}

/** The top of the judging screen: whose queue, how far along, this item, and the actions with their keys. */
export function JudgeBar({
  judging,
  guidelines,
  onGuidelines,
  onSheet,
}: {
  judging: Judging;
  guidelines: boolean;
  onGuidelines: () => void;
  onSheet: () => void;
}) {
  const { queue, item, index, positions } = judging;
  return (
    <div className="judge-bar">
      <div className="judge-title">
        <strong>{queue?.campaign.name ?? '…'}</strong>
        <span className="muted">judged by {queue?.annotator}</span>
        {queue?.offline ? (
          <span className="badge" title="Working from a pack file: no database, no network">
            offline pack
          </span>
        ) : null}
        {queue?.campaign.blind ? (
          <span className="badge" title="Other annotators' judgments and the LLM filter votes are hidden">
            blind
          </span>
        ) : null}
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
        {item ? <ItemTimer key={item.position} before={item.timeMs} /> : null}
        <SaveState />
        <button type="button" className="button small" onClick={() => judging.step(-1)} disabled={index <= 0}>
          <kbd>k</kbd> previous
        </button>
        <button type="button" className="button small" onClick={() => judging.step(1)} disabled={index === -1 || index >= positions.length - 1}>
          next <kbd>j</kbd>
        </button>
        <button type="button" className="button small" onClick={judging.skip}>
          skip <kbd>s</kbd>
        </button>
        <button type="button" className="button small" onClick={judging.undo}>
          undo <kbd>u</kbd>
        </button>
        <button type="button" className="button small" aria-pressed={guidelines} onClick={onGuidelines} title="Open or close the guidelines (g or h)">
          guidelines <kbd>g</kbd>
        </button>
        <button type="button" className="button small ghost" onClick={onSheet}>
          <kbd>?</kbd>
        </button>
      </div>
    </div>
  );
}
