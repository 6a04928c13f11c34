import { useState, type FormEvent } from 'react';
import { ACCOUNT_ROLES, type AccountRole, type IssuedToken, type TeamStatus } from '../../../shared/api';
import { useOp, useOpMutation } from '../../query';
import { ago } from './SyncStatus';

/**
 * The Team page, for maintainers: the people who may use this workbench, their roles and tokens,
 * what each has changed (the audit trail), and the state of sync with the shared store.
 */

const ROLE_HELP: Record<AccountRole, string> = {
  maintainer: 'everything: imports, pipeline runs, releases, campaigns, accounts',
  annotator: 'judges their own assignments; sees others’ judgments only in campaigns that are not blind',
  viewer: 'reads data, campaigns and agreement; changes nothing',
};

/** What one person changed, newest first (the audit trail). */
function AuditCard({ name, onClose }: { name: string; onClose: () => void }) {
  const audit = useOp('account:audit', { name, limit: 200 });
  return (
    <section className="card" data-testid="team-audit">
      <div className="card-head">
        <strong>What {name} changed</strong>
        <span className="spacer" />
        <button type="button" className="button ghost small" onClick={onClose}>
          Close
        </button>
      </div>
      {(audit.data ?? []).length === 0 ? <div className="muted">Nothing yet.</div> : null}
      <table className="plain">
        <tbody>
          {(audit.data ?? []).map((row) => (
            <tr key={row.id}>
              <td className="mono small">{row.at.replace('T', ' ').slice(0, 19)}</td>
              <td className="mono">{row.operation}</td>
              <td>{row.ok ? '' : <span className="flag-bad">refused or failed</span>}</td>
              <td className="small muted">{JSON.stringify(row.summary).slice(0, 160)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Where this desktop syncs judgments to, and how far it is. */
function SharedStoreCard({ sync: s }: { sync: TeamStatus['sync'] | undefined }) {
  return (
    <section className="card">
      <div className="card-head">
        <strong>Shared store</strong>
      </div>
      {s?.configured ? (
        <dl className="kv">
          <dt>Store</dt>
          <dd className="mono">{s.store}</dd>
          <dt>This desktop</dt>
          <dd>
            {s.role}
            {s.annotator ? ` (${s.annotator})` : ''}
          </dd>
          <dt>Last sync</dt>
          <dd>{s.lastSyncAt ? `${s.lastSyncAt} (${ago(s.lastSyncAt)})` : 'never'}</dd>
          <dt>To push</dt>
          <dd>{s.pending} judgment(s)</dd>
          {s.lastError ? (
            <>
              <dt>Last error</dt>
              <dd className="flag-bad">{s.lastError}</dd>
            </>
          ) : null}
        </dl>
      ) : (
        <p className="muted">
          Not set up. On the command line: <code className="mono">awb team init --postgres postgres://user@host:5432/awb --role maintainer</code> (the password comes from PGPASSWORD and
          is never stored). Conflicting judgments from two desktops show up under each campaign’s disagreements, to adjudicate.
        </p>
      )}
    </section>
  );
}

/** A new account with a role, and its first token (shown once, by the page). */
function AddPersonForm({ onIssued }: { onIssued: (token: IssuedToken) => void }) {
  const create = useOpMutation('account:create', { onSuccess: onIssued });
  const [name, setName] = useState('');
  const [role, setNewRole] = useState<AccountRole>('annotator');
  const add = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate({ name: name.trim(), role });
    setName('');
  };
  return (
    <>
      {create.error ? <div className="notice flag-bad">{create.error.message}</div> : null}
      <form className="card" onSubmit={add}>
        <div className="card-head">
          <strong>Add a person</strong>
        </div>
        <div className="form">
          <span>Name</span>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder="as in campaigns, e.g. alice" data-testid="team-new-name" />
          <span>Role</span>
          <select className="input" value={role} onChange={(e) => setNewRole(e.target.value as AccountRole)}>
            {ACCOUNT_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}: {ROLE_HELP[r]}
              </option>
            ))}
          </select>
          <span />
          <button type="submit" className="button primary" disabled={!name.trim() || create.isPending} style={{ justifySelf: 'start' }}>
            Add and issue a token
          </button>
        </div>
      </form>
    </>
  );
}

export function TeamView() {
  const status = useOp('team:status', {});
  const accounts = useOp('account:list', {});
  const [selected, setSelected] = useState<string | null>(null);
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const issue = useOpMutation('account:issue-token', { onSuccess: (value) => (setIssued(value), void accounts.refetch()) });
  const revoke = useOpMutation('account:revoke-token', { onSuccess: () => void accounts.refetch() });
  const setRole = useOpMutation('account:set-role', { onSuccess: () => void accounts.refetch() });
  const disable = useOpMutation('account:disable', { onSuccess: () => void accounts.refetch() });
  const me = status.data?.me;
  const error = issue.error ?? revoke.error ?? setRole.error ?? disable.error ?? accounts.error;

  if (me && me.role !== 'maintainer') {
    return (
      <div className="page">
        <div className="page-inner">
          <h1>Team</h1>
          <div className="notice">Only maintainers manage the team. You are signed in as {me.name} ({me.role}).</div>
        </div>
      </div>
    );
  }

  return (
    <div className="page" data-testid="team-view">
      <div className="page-inner" style={{ maxWidth: 1200 }}>
        <h1>Team</h1>
        <p className="muted">
          {status.data?.teamMode
            ? 'Team mode is on: everyone who reaches this workbench through awb serve signs in, and their role decides what they may do. Every change they make is recorded below.'
            : 'Team mode is off: add a maintainer to turn it on. Then awb serve asks everyone to sign in, and may listen beyond this computer (--host).'}
        </p>
        {error ? <div className="notice flag-bad">{error.message}</div> : null}
        {issued ? (
          <div className="notice" data-testid="issued-token">
            Token for <strong>{issued.account}</strong>
            {issued.expiresAt ? ` (expires ${issued.expiresAt.slice(0, 10)})` : ''}: <code className="mono">{issued.token}</code>
            <div className="muted small">Shown once: only its hash is kept. Hand it over privately.</div>
            <button type="button" className="button small" onClick={() => setIssued(null)}>
              Done
            </button>
          </div>
        ) : null}
        <AddPersonForm onIssued={(value) => (setIssued(value), void accounts.refetch())} />
        <table className="plain" data-testid="team-people">
          <thead>
            <tr>
              <th>Person</th>
              <th>Role</th>
              <th>Tokens</th>
              <th>Changes</th>
              <th>Last change</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(accounts.data ?? []).map((a) => (
              <tr key={a.id} className={a.disabled ? 'muted' : ''}>
                <td>
                  <a href={`#${a.name}`} onClick={(e) => (e.preventDefault(), setSelected(a.name))}>
                    {a.name}
                  </a>
                  {a.disabled ? ' (disabled)' : ''}
                </td>
                <td>
                  <select className="input inline" value={a.role} disabled={a.disabled} onChange={(e) => setRole.mutate({ name: a.name, role: e.target.value as AccountRole })} aria-label={`Role of ${a.name}`}>
                    {ACCOUNT_ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td>
                  {a.tokens.map((t) => (
                    <div key={t.id} className="small">
                      #{t.id} {t.label ? `“${t.label}” ` : ''}
                      {t.revokedAt ? <span className="muted">revoked</span> : t.expiresAt && t.expiresAt < new Date().toISOString() ? <span className="muted">expired</span> : <>used {ago(t.lastUsedAt)}</>}
                      {!t.revokedAt ? (
                        <button type="button" className="button ghost small" onClick={() => revoke.mutate({ tokenId: t.id })}>
                          Revoke
                        </button>
                      ) : null}
                    </div>
                  ))}
                </td>
                <td>{a.writes}</td>
                <td>{a.lastWriteAt ? ago(a.lastWriteAt) : '–'}</td>
                <td>
                  {!a.disabled ? (
                    <>
                      <button type="button" className="button small" onClick={() => issue.mutate({ name: a.name })}>
                        New token
                      </button>{' '}
                      <button type="button" className="button ghost small" onClick={() => disable.mutate({ name: a.name })}>
                        Disable
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {selected ? <AuditCard name={selected} onClose={() => setSelected(null)} /> : null}
        <SharedStoreCard sync={status.data?.sync} />
      </div>
    </div>
  );
}
