import Markdown from 'react-markdown';
import type { Protocol } from '../../../shared/protocols';

/**
 * The protocol's guidelines and each criterion's question, in a drawer over the lower part of the
 * instance side (where the evidence is): the interpretations stay side by side above it and the
 * criteria beside it, so one judges while reading them.
 */
export function GuidelinesPanel({ protocol, onClose }: { protocol: Protocol; onClose: () => void }) {
  return (
    <div className="guidelines-drawer" role="dialog" aria-modal="false" aria-label="Guidelines" data-testid="guidelines">
      <header className="card-head">
        <h2>{protocol.name}: guidelines</h2>
        <div className="spacer" />
        <button type="button" className="button small ghost" onClick={onClose}>
          close <kbd>g</kbd>
        </button>
      </header>
      <div className="markdown">
        <Markdown>{protocol.guidelines || '_This protocol has no guidelines._'}</Markdown>
        {protocol.criteria.map((c) => (
          <section key={c.id}>
            <h3>{c.label}</h3>
            <p>{c.question}</p>
            {c.help ? <p className="muted">{c.help}</p> : null}
          </section>
        ))}
      </div>
    </div>
  );
}
