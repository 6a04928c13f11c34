import { useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/bits';

/** Desktop: API keys kept by the system keychain; browser mode: where keys come from instead. */
export function ApiKeys() {
  const keys = window.awb?.apiKeys;
  const [names, setNames] = useState<string[]>([]);
  const [name, setName] = useState('OPENROUTER_API_KEY');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Error>();
  useEffect(() => {
    keys?.names().then(setNames, setError);
  }, [keys]);
  if (!keys) {
    return (
      <p className="small muted">
        API keys come from the environment variables each endpoint names (<span className="mono">apiKeyEnv</span>); set them before{' '}
        <span className="mono">npm start</span>. Local servers (Ollama, vLLM, llama.cpp) need none.
      </p>
    );
  }
  return (
    <div className="stack">
      <p className="small muted">Kept encrypted by the system keychain, never in the database. Stored: {names.length ? names.join(', ') : 'none'}.</p>
      <div className="row-gap">
        <input className="input mono" value={name} onChange={(e) => setName(e.target.value)} aria-label="Variable name" />
        <input className="input" type="password" value={value} onChange={(e) => setValue(e.target.value)} placeholder="key" aria-label="Key" />
        <button
          type="button"
          className="button small"
          disabled={!value}
          onClick={() =>
            keys.set(name, value).then((n) => {
              setNames(n);
              setValue('');
            }, setError)
          }
        >
          Save key
        </button>
        <button type="button" className="button small ghost" onClick={() => keys.set(name, null).then(setNames, setError)}>
          Forget
        </button>
      </div>
      <ErrorNotice error={error} />
    </div>
  );
}
