import { useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/bits';
import type { Notice } from './useDecisions';

const SHOWN_MS = 5000;

/**
 * Notices (undone, skipped, nothing to undo) and errors float over the corner of the screen, so
 * nothing under the mouse moves when one comes or goes. A notice fades after a few seconds; an
 * error stays until the next decision saves, or until it is closed.
 */
export function JudgeToasts({ notice, error }: { notice: Notice | null; error: Error | null | undefined }) {
  const [hidden, setHidden] = useState<number | null>(null);
  const [closedError, setClosedError] = useState<Error | null>(null);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setHidden(notice.id), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [notice]);
  const showNotice = notice && hidden !== notice.id;
  const showError = error && error !== closedError;
  if (!showNotice && !showError) return null;
  return (
    <div className="toasts" aria-live="polite">
      {showError ? (
        <div className="toast-card bad" data-testid="judge-error">
          <ErrorNotice error={error} />
          <button type="button" className="button small ghost" onClick={() => setClosedError(error)} aria-label="Close">
            ×
          </button>
        </div>
      ) : null}
      {showNotice ? (
        <div key={notice.id} className="toast-card ok" data-testid="judge-notice">
          {notice.text}
        </div>
      ) : null}
    </div>
  );
}
