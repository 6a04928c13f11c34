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
 * wins over the URL's, and a URL changed from outside (back, forward) wins over both.
 */
export function useJudgingLocation(): { session: JudgingSession | null; position: number | null; goTo: (position: number) => void } {
  const search = useSearch();
  const [, navigate] = useLocation();
  const parsed = sessionFromSearch(search);
  const key = parsed ? sessionSearch(parsed) : '';
  const session = useMemo(() => sessionFromSearch(key), [key]);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  const [moved, setMoved] = useState<{ position: number; search: string } | null>(null);
  const current = useRef(search);
  current.current = search;
  const writing = useRef<number | null>(null);
  const goTo = useCallback(
    (position: number) => {
      setMoved({ position, search: current.current });
      // One write after the paint, of the latest position moved to (none if the user went elsewhere meanwhile).
      const scheduled = writing.current !== null;
      writing.current = position;
      if (scheduled) return;
      const from = window.location.href;
      afterPaint(() => {
        const latest = writing.current!;
        writing.current = null;
        if (window.location.href === from) navigate(`/judge?${key}&at=${latest}`, { replace: true });
      });
    },
    [navigate, key],
  );
  const position = moved && moved.search === search ? moved.position : Number.isInteger(at) ? at : null;
  return { session, position, goTo };
}
