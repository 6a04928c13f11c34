import { useCallback, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { JudgingSession } from '../../../shared/api';
import { afterPaint } from '../../frame';

/** Where judging happens (a campaign and annotator, or a pack) and which item, both in the URL. */

function sessionFromSearch(search: string): JudgingSession | null {
  const params = new URLSearchParams(search);
  const pack = params.get('pack');
  if (pack) return { pack };
  const campaignId = Number(params.get('campaign'));
  const annotator = params.get('annotator');
  return Number.isInteger(campaignId) && campaignId > 0 && annotator ? { campaignId, annotator } : null;
}

export function sessionSearch(session: JudgingSession): string {
  return 'pack' in session ? `pack=${encodeURIComponent(session.pack)}` : `campaign=${session.campaignId}&annotator=${encodeURIComponent(session.annotator)}`;
}

/**
 * The session (the same object while only the item changes), the item's position, and a way to
 * another item. Moving on shows the item at once and writes the URL after that frame is painted
 * (writing history costs the main thread about a millisecond): until then the position moved to
 * wins over the URL's; after it, the URL alone says where the screen is.
 */
export function useJudgingLocation(): { session: JudgingSession | null; position: number | null; goTo: (position: number) => void } {
  const search = useSearch();
  const [, navigate] = useLocation();
  const parsed = sessionFromSearch(search);
  const key = parsed ? sessionSearch(parsed) : '';
  const session = useMemo(() => sessionFromSearch(key), [key]);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  // The position moved to, until its URL is written (one frame at most).
  const [moved, setMoved] = useState<number | null>(null);
  const writing = useRef<number | null>(null);
  const goTo = useCallback(
    (position: number) => {
      setMoved(position);
      // One write after the paint, of the latest position moved to (none if the user went elsewhere meanwhile).
      const scheduled = writing.current !== null;
      writing.current = position;
      if (scheduled) return;
      const from = window.location.href;
      afterPaint(() => {
        const latest = writing.current!;
        writing.current = null;
        if (window.location.href === from) navigate(`/judge?${key}&at=${latest}`, { replace: true });
        setMoved(null);
      });
    },
    [navigate, key],
  );
  const position = moved ?? (Number.isInteger(at) ? at : null);
  return { session, position, goTo };
}
