import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { JudgingSession } from '../../../shared/api';

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

/** The session (the same object while only the item changes), the item's position, and a way to another item. */
export function useJudgingLocation(): { session: JudgingSession | null; position: number | null; goTo: (position: number) => void } {
  const search = useSearch();
  const [, navigate] = useLocation();
  const parsed = sessionFromSearch(search);
  const key = parsed ? sessionSearch(parsed) : '';
  const session = useMemo(() => sessionFromSearch(key), [key]);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  const goTo = useCallback((position: number) => navigate(`/judge?${key}&at=${position}`, { replace: true }), [navigate, key]);
  return { session, position: Number.isInteger(at) ? at : null, goTo };
}
