import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PromptTemplate } from '../../../shared/pipeline';
import { ErrorNotice } from '../../components/bits';
import { opKey, useOp, useOpMutation } from '../../query';
import { OpButton } from '../../access';

/** The prompt template of each stage; saving an edit makes a new version. */
export function PromptsTab() {
  const prompts = useOp('pipeline:prompts', {});
  const [selected, setSelected] = useState<string | null>(null);
  const current = prompts.data?.find((p) => p.stage === selected) ?? prompts.data?.[0];
  return (
    <div className="split">
      <nav className="side-list" aria-label="Prompts">
        {prompts.data?.map((p) => (
          <a
            key={p.stage}
            href="#"
            className={p.stage === current?.stage ? 'active' : ''}
            onClick={(e) => {
              e.preventDefault();
              setSelected(p.stage);
            }}
          >
            {p.stage} <span className="small muted">v{p.version}</span>
          </a>
        ))}
      </nav>
      <div className="split-main">{current ? <PromptEditor key={`${current.stage}@${current.version}`} prompt={current} /> : null}</div>
    </div>
  );
}

/** A saved prompt is the stage's current one, and the newest in its history. */
function useSavePrompt() {
  const client = useQueryClient();
  return useOpMutation('pipeline:prompt-save', {
    onSuccess: (saved) => {
      client.setQueryData<PromptTemplate[]>(opKey('pipeline:prompts', {}), (list) => list?.map((p) => (p.stage === saved.stage ? saved : p)));
      void client.invalidateQueries({ queryKey: opKey('pipeline:prompt-history', { stage: saved.stage }) });
    },
  });
}

function PromptEditor({ prompt }: { prompt: PromptTemplate }) {
  const [system, setSystem] = useState(prompt.system);
  const [user, setUser] = useState(prompt.user);
  const save = useSavePrompt();
  const history = useOp('pipeline:prompt-history', { stage: prompt.stage });
  const changed = system !== prompt.system || user !== prompt.user;
  return (
    <div className="stack" data-testid="prompt-editor">
      <div className="small muted">
        {prompt.stage} v{prompt.version} {prompt.builtIn ? '(built in)' : ''}; saving makes v{prompt.version + 1}. Calls record the version they used, and a
        changed prompt is a new cache key.
      </div>
      <label className="small muted" htmlFor="prompt-system">
        System
      </label>
      <textarea id="prompt-system" className="input" rows={6} value={system} onChange={(e) => setSystem(e.target.value)} />
      <label className="small muted" htmlFor="prompt-user">
        User
      </label>
      <textarea id="prompt-user" className="input mono" rows={12} value={user} onChange={(e) => setUser(e.target.value)} />
      <div className="row-gap">
        <OpButton operation="pipeline:prompt-save" className="button primary" disabled={!changed} onClick={() => save.mutate({ stage: prompt.stage, system, user })}>
          Save as v{prompt.version + 1}
        </OpButton>
        <button
          type="button"
          className="button ghost"
          disabled={!changed}
          onClick={() => {
            setSystem(prompt.system);
            setUser(prompt.user);
          }}
        >
          Revert
        </button>
      </div>
      <ErrorNotice error={save.error} />
      <div className="small muted">History: {history.data?.map((h) => `v${h.version} (${h.createdAt.slice(0, 10)})`).join(', ')}</div>
    </div>
  );
}
