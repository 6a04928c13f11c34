import { useState } from 'react';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';
import { OpButton } from '../../access';

/** The evaluation's prompts: pick one, edit it, save it as a new version (runs record the versions they used). */
export function PromptsPanel() {
  const prompts = useOp('evaluation:prompts', {});
  const save = useOpMutation('evaluation:prompt-save');
  const [name, setName] = useState('eval_direct');
  const [draft, setDraft] = useState<{ name: string; system: string; user: string } | null>(null);
  const current = prompts.data?.find((p) => p.name === name);
  const editing = draft && draft.name === name ? draft : current ? { name, system: current.system, user: current.user } : null;
  return (
    <section className="card" data-testid="eval-prompts">
      <div className="row-gap">
        <h2>Prompts</h2>
        <select className="input" value={name} onChange={(e) => setName(e.target.value)} aria-label="prompt">
          {prompts.data?.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} (v{p.version}
              {p.builtIn ? ', built in' : ', edited'})
            </option>
          ))}
        </select>
        {current ? <span className="small muted">placeholders: {current.placeholders.map((p) => `{{${p}}}`).join(' ')}</span> : null}
      </div>
      {editing ? (
        <>
          <label className="small muted" htmlFor="eval-prompt-system">
            System
          </label>
          <textarea id="eval-prompt-system" className="input mono" rows={5} value={editing.system} onChange={(e) => setDraft({ ...editing, system: e.target.value })} />
          <label className="small muted" htmlFor="eval-prompt-user">
            User
          </label>
          <textarea id="eval-prompt-user" className="input mono" rows={6} value={editing.user} onChange={(e) => setDraft({ ...editing, user: e.target.value })} />
          <div className="row-gap">
            <OpButton
              operation="evaluation:prompt-save"
              className="button"
              disabled={!draft || save.isPending}
              onClick={() => draft && save.mutate({ name, system: draft.system, user: draft.user }, { onSuccess: () => setDraft(null) })}
            >
              Save as a new version
            </OpButton>
            <ErrorNotice error={save.error} />
          </div>
        </>
      ) : null}
    </section>
  );
}
