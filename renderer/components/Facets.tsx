import type { ReactNode } from 'react';
import type { FacetCount } from '../../shared/api';

/** One facet: its values with counts (and a faint bar per count behind each, for a glance at the spread). */
export function Facet<V extends string | number | null>(props: {
  title: string;
  options: FacetCount<V>[] | undefined;
  selected: readonly V[];
  onChange: (selected: V[]) => void;
  render?: (option: FacetCount<V>) => ReactNode;
}) {
  const { title, options, selected, onChange } = props;
  const max = Math.max(1, ...(options ?? []).map((o) => o.count));
  const toggle = (value: V) =>
    onChange(selected.includes(value) ? selected.filter((v) => v !== value) : [...selected, value]);
  return (
    <section className="facet" aria-label={title}>
      <h3>
        {title}
        {selected.length ? (
          <button type="button" onClick={() => onChange([])}>
            clear
          </button>
        ) : null}
      </h3>
      {(options ?? []).map((option) => (
        <label key={String(option.value)} className="facet-option">
          <input type="checkbox" checked={selected.includes(option.value)} onChange={() => toggle(option.value)} />
          <span className="label" title={option.label}>
            {props.render ? props.render(option) : option.label}
          </span>
          <span className="n">{option.count.toLocaleString('en-US')}</span>
          <span className="bar" aria-hidden style={{ width: `calc((100% - 24px) * ${option.count / max})` }} />
        </label>
      ))}
      {options && options.length === 0 ? <div className="muted small">none</div> : null}
    </section>
  );
}
