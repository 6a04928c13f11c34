import { useState, type FormEvent, type ReactNode } from 'react';
import type { Result } from '../../../shared/api';
import { ApiCallError, isDesktop } from '../../api';
import { useOp } from '../../query';

/**
 * Team mode in the browser: until the server knows who is there, every call answers
 * "unauthorized" and this screen stands in for the app. Signing in sets an HttpOnly session
 * cookie (the page never sees it), then the app starts afresh.
 */

export async function signIn(body: { name: string; password: string } | { token: string }): Promise<void> {
  const response = await fetch('/api/session/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const result = (await response.json()) as Result<unknown>;
  if (!result.ok) throw new ApiCallError(result.error.code, result.error.message);
}

export async function signOut(): Promise<void> {
  await fetch('/api/session/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  window.location.reload();
}

// Inline, so the screen needs nothing of the stylesheet beyond its shared classes.
const SCREEN = { display: 'grid', placeItems: 'center', height: '100%', padding: 24, background: 'var(--bg)' } as const;
const CARD = { width: 380, maxWidth: '100%', gap: 12, padding: '20px 24px' } as const;
const FIELD = { display: 'flex', flexDirection: 'column', gap: 4 } as const;

export function SignInScreen() {
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(mode === 'password' ? { name: name.trim(), password } : { token: token.trim() });
      window.location.reload();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <div style={SCREEN} data-testid="sign-in">
      <form className="card" style={CARD} onSubmit={(e) => void submit(e)}>
        <div className="brand">
          <span className="brand-mark">A</span> Ambiguity Workbench
        </div>
        <h1>Sign in</h1>
        <p className="muted">This workbench is shared by a team. Sign in with your name and password, or with the personal token a maintainer gave you.</p>
        <div className="tabs" role="tablist">
          <a href="#password" role="tab" aria-selected={mode === 'password'} className={mode === 'password' ? 'active' : ''} onClick={(e) => (e.preventDefault(), setMode('password'))}>
            Password
          </a>
          <a href="#token" role="tab" aria-selected={mode === 'token'} className={mode === 'token' ? 'active' : ''} onClick={(e) => (e.preventDefault(), setMode('token'))}>
            Token
          </a>
        </div>
        {mode === 'password' ? (
          <>
            <label style={FIELD}>
              <span>Name</span>
              <input className="input" autoComplete="username" value={name} onChange={(e) => setName(e.target.value)} required autoFocus data-testid="sign-in-name" />
            </label>
            <label style={FIELD}>
              <span>Password</span>
              <input className="input" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required data-testid="sign-in-password" />
            </label>
          </>
        ) : (
          <label style={FIELD}>
            <span>Token</span>
            <input className="input mono" autoComplete="off" spellCheck={false} placeholder="awb_…" value={token} onChange={(e) => setToken(e.target.value)} required data-testid="sign-in-token" />
          </label>
        )}
        {error ? (
          <div className="notice flag-bad" role="alert" data-testid="sign-in-error">
            {error}
          </div>
        ) : null}
        <button type="submit" className="button primary" disabled={busy} data-testid="sign-in-submit">
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">Too many failed tries lock the name for a quarter of an hour. Lost your token? Ask a maintainer for a new one.</p>
      </form>
    </div>
  );
}

/** Shows the app once the caller is known (or no sign-in is needed), the sign-in screen otherwise. */
export function SignInGate({ children }: { children: ReactNode }) {
  const status = useOp('team:status', isDesktop ? null : {});
  if (isDesktop) return <>{children}</>;
  if (status.error instanceof ApiCallError && status.error.code === 'unauthorized') return <SignInScreen />;
  if (status.isPending) return null;
  return <>{children}</>;
}
