import { useOp } from '../../query';

/**
 * The items a run or a score is over: a release (`release:NAME@VERSION`, the release's latest
 * version of a split chosen apart) or a dataset (`dataset:NAME`), as one select.
 */
export function ItemSource({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  const datasets = useOp('dataset:list', {});
  const releases = useOp('release:list', {});
  return (
    <select id={id} className="input" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">choose…</option>
      <optgroup label="Releases">
        {releases.data?.map((r) => (
          <option key={r.id} value={`release:${r.name}@${r.version}`}>
            {r.name}@{r.version} ({r.instances})
          </option>
        ))}
      </optgroup>
      <optgroup label="Datasets">
        {datasets.data?.map((d) => (
          <option key={d.id} value={`dataset:${d.name}`}>
            {d.name}
          </option>
        ))}
      </optgroup>
    </select>
  );
}
