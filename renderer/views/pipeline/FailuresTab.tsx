import { useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { PipelineStage } from '../../../shared/domain';
import { RUN_STAGES } from '../../../shared/pipeline';
import { useOp } from '../../query';
import { Trace } from './Trace';

/** The items that failed, by stage; a click (or an item id typed in) shows its trace. */
export function FailuresTab() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const stage = (params.get('stage') ?? undefined) as PipelineStage | undefined;
  const item = params.get('item');
  const failures = useOp('pipeline:failures', stage ? { stage } : {});
  const [typed, setTyped] = useState(item ?? '');
  return (
    <div className="stack">
      <div className="row-gap">
        <select
          className="input"
          value={stage ?? ''}
          onChange={(e) => navigate(`/pipeline/failures${e.target.value ? `?stage=${e.target.value}` : ''}`)}
          aria-label="Stage"
        >
          <option value="">every stage</option>
          {RUN_STAGES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <div className="spacer" />
        <input
          className="input mono item-input"
          value={typed}
          onChange={(e) => setTyped(e.target.value.trim())}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && /^(bq|inst):\d+$/.test(typed)) navigate(`/pipeline/failures?item=${typed}`);
          }}
          placeholder="inst:12 or bq:7"
          aria-label="Item"
        />
        <button type="button" className="button small" disabled={!/^(bq|inst):\d+$/.test(typed)} onClick={() => navigate(`/pipeline/failures?item=${typed}`)}>
          Trace
        </button>
      </div>
      {item ? <Trace item={item} question={failures.data?.find((f) => f.item === item)?.question || undefined} /> : null}
      <table className="plain" data-testid="failures">
        <thead>
          <tr>
            <th>Item</th>
            <th>Stage</th>
            <th>Question</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {failures.data?.map((f) => (
            <tr
              key={`${f.stage}:${f.item}`}
              className="clickable"
              onClick={() => navigate(`/pipeline/failures?${stage ? `stage=${stage}&` : ''}item=${f.item}`)}
            >
              <td className="mono">{f.item}</td>
              <td>{f.stage}</td>
              <td>{f.question}</td>
              <td className="small">{f.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {failures.data?.length === 0 ? <div className="empty">No failed item{stage ? ` in ${stage}` : ''}.</div> : null}
    </div>
  );
}
