import { useEffect, useState } from 'react';
import type { SyncReport } from '../../../shared/api';
import { useOp, useOpMutation } from '../../query';
import { signOut } from './SignIn';

/** "5 min ago", for the status bar. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** The status bar's part of team mode: who is signed in, and the state of sync with the shared store. */
export function TeamStatusBar() {
  const status = useOp('team:status', {});
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 30_000);
    return () => clearInterval(timer);
  }, []);
  const [report, setReport] = useState<SyncReport | null>(null);
  const sync = useOpMutation('sync:run', { onSuccess: (value) => setReport(value) });
  const s = status.data?.sync;
  const me = status.data?.me;
  const canSync = s?.configured && (me === null || me?.role === 'maintainer');
  const state = sync.isPending ? 'syncing' : sync.error ? 'failed' : s?.lastError ? 'failed' : s?.configured ? (s.pending > 0 ? 'pending' : 'synced') : null;
  return (
    <>
      {s?.configured ? (
        <span
          className={state === 'failed' ? 'flag-bad' : state === 'pending' ? 'flag-warn' : ''}
          data-testid="sync-status"
          title={[`Shared store: ${s.store}`, sync.error?.message ?? s.lastError ?? '', ...(report?.warnings ?? [])].filter(Boolean).join('\n')}
        >
          {state === 'syncing' ? 'Syncing…' : state === 'failed' ? 'Sync failed' : state === 'pending' ? `${s.pending} to sync` : 'Synced'} · last sync {ago(s.lastSyncAt)}
          {canSync ? (
            <button type="button" className="button ghost small" disabled={sync.isPending} onClick={() => sync.mutate({})} data-testid="sync-now">
              Sync now
            </button>
          ) : null}
        </span>
      ) : null}
      {me ? (
        <span data-testid="signed-in">
          {me.name} <span className="muted">({me.role})</span>
          <button type="button" className="button ghost small" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      ) : null}
    </>
  );
}
