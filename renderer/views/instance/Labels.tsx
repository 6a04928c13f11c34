import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type RefObject } from 'react';
import type { LabelView, Provenance } from '../../../shared/api';
import { ANSWERABILITY_LABELS, type Answerability, type Domain } from '../../../shared/domain';
import { NotAllowed, useAccess, type Permission } from '../../access';
import { describeProvenance, ErrorNotice } from '../../components/bits';
import { useKeys } from '../../hooks';
import { opKey, useOp, useOpMutation } from '../../query';

/**
 * The labels of an instance or a base question: answerability (URASys) and, on instances, the
 * topic (MARCH Table 7), each with where it came from. A maintainer sets them by hand (`a` and
 * `t` focus the two choices); Undo sets back the label there was, which is then recorded as set
 * by hand. Other roles see the choices disabled, with the reason.
 */

const GRID = { display: 'grid', gridTemplateColumns: 'max-content minmax(160px, 240px) 1fr', gap: '6px 10px', alignItems: 'center' } as const;

type Target = { instanceId: number } | { baseQuestionId: number };

/** Where a label came from, in a sentence; a label set by hand names who set it. */
export function labelSource(p: Provenance | null): string {
  if (p?.source === 'human') return p.detail && p.detail !== 'set by hand' ? `Set by hand by ${p.detail}` : 'Set by hand';
  if (p?.source === 'llm') return `By the labelling models’ consensus (${describeProvenance(p)})`;
  return describeProvenance(p);
}

/** The answerability an instance has of its own (null: it follows its base question), or the base question's. */
function ownAnswerability(view: LabelView): Answerability | null {
  return view.instanceId !== null && view.answerability?.from !== 'instance' ? null : (view.answerability?.label ?? null);
}

interface Change {
  what: 'answerability' | 'topic';
  before: string | null;
}

/**
 * Setting the labels of one target: each choice shows at once (a select is controlled: without
 * this, the next arrow key would start from the old value), then the server's answer replaces it,
 * the latest answer only (an earlier one arriving late would undo a later step). The writes go one
 * at a time, in the order made (one mutation scope per target): sent together, three quick arrow
 * keys could reach the server in another order and leave an earlier step stored. Arrow keys
 * change a select one option at a time, so Undo goes back to before the first step.
 */
function useLabelSetting(target: Target, note: string) {
  const client = useQueryClient();
  const onInstance = 'instanceId' in target;
  const key = opKey('label:get', target);
  const scope = { id: `labels ${JSON.stringify(target)}` };
  const [change, setChange] = useState<Change | null>(null);
  const latest = useRef(0);
  const byHand: Provenance = { source: 'human', detail: note, model: null, promptVersion: null, call: null };
  const optimistic = (patch: (view: LabelView) => LabelView) => {
    // A read already on its way would show the label as it was before this choice.
    void client.cancelQueries({ queryKey: key });
    client.setQueryData<LabelView>(key, (old) => (old ? patch(old) : old));
    return ++latest.current;
  };
  const settled = {
    onSuccess: (next: LabelView, _input: unknown, sent: number | undefined) => {
      if (sent === latest.current) client.setQueryData(key, next);
    },
    onError: () => void client.invalidateQueries({ queryKey: key }),
  };
  const setAnswerability = useOpMutation('answerability:set', {
    scope,
    onMutate: ({ label }) => optimistic((old) => ({ ...old, answerability: label ? { label, provenance: byHand, from: onInstance ? 'instance' : 'base-question' } : null })),
    ...settled,
  });
  const setDomain = useOpMutation('domain:set', {
    scope,
    onMutate: ({ domain }) => optimistic((old) => ({ ...old, domain: domain ? { domain, label: domain, provenance: byHand } : null })),
    ...settled,
  });
  const remember = (what: Change['what'], before: string | null) => setChange((last) => (last?.what === what ? last : { what, before }));
  const answerability = (v: LabelView, label: string | null, undoable = true) => {
    if (undoable) remember('answerability', ownAnswerability(v));
    setAnswerability.mutate({ ...target, label: label as Answerability | null, note });
  };
  const topic = (v: LabelView, domain: string | null, undoable = true) => {
    if (!onInstance) return;
    if (undoable) remember('topic', v.domain?.domain ?? null);
    setDomain.mutate({ instanceId: target.instanceId, domain: domain as Domain | null, note });
  };
  const undo = (v: LabelView) => {
    if (!change) return;
    if (change.what === 'answerability') answerability(v, change.before, false);
    else topic(v, change.before, false);
    setChange(null);
  };
  return { change, answerability, topic, undo, error: setAnswerability.error ?? setDomain.error };
}

/** One label: its name with the key that focuses it, the choice (disabled, with the reason, for roles that may not set it), and where it came from. */
function LabelChoice(props: {
  id: string;
  name: string;
  shortcut: string;
  value: string;
  options: { value: string; label: string }[];
  source: string;
  permission: Permission;
  selectRef: RefObject<HTMLSelectElement | null>;
  onChange: (value: string | null) => void;
}) {
  return (
    <>
      <label htmlFor={props.id}>
        {props.name} <kbd>{props.shortcut}</kbd>
      </label>
      <select
        id={props.id}
        ref={props.selectRef}
        className="input"
        value={props.value}
        disabled={!props.permission.allowed}
        title={props.permission.reason}
        onChange={(e) => props.onChange(e.target.value || null)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <span className="small muted" data-testid={`${props.id.replace('label-', '')}-source`}>
        {props.source}
      </span>
    </>
  );
}

export function LabelsCard({ target }: { target: Target }) {
  const access = useAccess();
  const view = useOp('label:get', target);
  const domains = useOp('domain:list', {});
  const setting = useLabelSetting(target, access.me?.name ?? '');
  const answerabilityRef = useRef<HTMLSelectElement>(null);
  const topicRef = useRef<HTMLSelectElement>(null);
  const mayAnswerability = access.may('answerability:set');
  const onInstance = 'instanceId' in target;

  useKeys((event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    const select = event.key === 'a' ? answerabilityRef.current : event.key === 't' ? topicRef.current : null;
    if (!select || select.disabled) return;
    select.focus();
    event.preventDefault();
  });

  const v = view.data;
  if (!v) return <ErrorNotice error={view.error} />;
  const inherited = onInstance && v.answerability?.from === 'base-question' ? v.answerability.label : null;
  const none = onInstance ? `as its base question (${inherited ?? 'none'})` : 'no label';
  const answerabilitySource = v.answerability ? `${inherited ? 'From the base question. ' : ''}${labelSource(v.answerability.provenance)}` : 'Not labelled';
  return (
    <section className="card" data-testid="labels">
      <h3>Labels</h3>
      <div style={GRID}>
        <LabelChoice
          id="label-answerability"
          name="Answerability"
          shortcut="a"
          value={ownAnswerability(v) ?? ''}
          options={[{ value: '', label: none }, ...ANSWERABILITY_LABELS.map((l) => ({ value: l, label: l }))]}
          source={answerabilitySource}
          permission={mayAnswerability}
          selectRef={answerabilityRef}
          onChange={(label) => setting.answerability(v, label)}
        />
        {onInstance ? (
          <LabelChoice
            id="label-topic"
            name="Topic"
            shortcut="t"
            value={v.domain?.domain ?? ''}
            options={[{ value: '', label: 'no topic' }, ...(domains.data ?? []).map((d) => ({ value: d.slug, label: d.label }))]}
            source={v.domain ? labelSource(v.domain.provenance) : 'Not tagged'}
            permission={access.may('domain:set')}
            selectRef={topicRef}
            onChange={(domain) => setting.topic(v, domain)}
          />
        ) : null}
      </div>
      {setting.change ? (
        <div className="row-gap small">
          <span className="muted">Changed the {setting.change.what}.</span>
          <button type="button" className="button small" onClick={() => setting.undo(v)}>
            Undo
          </button>
        </div>
      ) : null}
      <NotAllowed permission={mayAnswerability} />
      <LabelVotes view={v} />
      <ErrorNotice error={setting.error} />
    </section>
  );
}

/** The labelling models' votes behind a label, when there are any. */
function LabelVotes({ view }: { view: LabelView }) {
  if (!view.votes.length) return null;
  return (
    <details className="small">
      <summary>{view.votes.length} labelling votes</summary>
      <table className="plain">
        <tbody>
          {view.votes.map((vote, i) => (
            <tr key={i}>
              <td>{vote.kind}</td>
              <td className="mono">{vote.model}</td>
              <td>{vote.verdict === 'not_needed' ? 'not needed' : vote.label}</td>
              <td className="muted">{vote.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
