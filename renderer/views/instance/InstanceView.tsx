import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { call } from '../../api';
import { ErrorNotice } from '../../components/bits';
import { useKeys } from '../../hooks';
import { listStateToSearch, parseInstanceParams } from '../../list-params';
import { useOp } from '../../query';
import { InstanceBody } from './InstanceBody';
import { LabelsCard } from './Labels';

/** One instance at its URL, with the instance table's order to step through (j/k) and go back to (Esc). */

export function InstanceView({ id }: { id: number }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const detail = useOp('instance:get', { id });
  const listState = useMemo(() => parseInstanceParams(search), [search]);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  const listSearch = listStateToSearch(listState);
  const back = () => navigate(`/instances${listSearch ? `${listSearch}&` : '?'}row=${Number.isInteger(at) ? at : 0}`);

  const step = async (delta: number) => {
    if (!Number.isInteger(at)) return;
    const next = at + delta;
    if (next < 0) return;
    const page = await call('instance:list', { ...listState, offset: next, limit: 1 });
    const row = page.rows[0];
    if (row) navigate(`/instances/${row.id}${listSearch ? `${listSearch}&` : '?'}at=${next}`, { replace: true });
  };

  useKeys((event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === 'Escape') back();
    else if (event.key === 'j' || event.key === 'ArrowDown' || event.key === 'ArrowRight') void step(1);
    else if (event.key === 'k' || event.key === 'ArrowUp' || event.key === 'ArrowLeft') void step(-1);
    else if (event.key === 'b' && detail.data) navigate(`/base-questions/${detail.data.baseQuestion.id}`);
    else return;
    event.preventDefault();
  });

  const d = detail.data;
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <button type="button" className="button small ghost" onClick={back}>
            ← Instances <kbd>Esc</kbd>
          </button>
          {Number.isInteger(at) ? (
            <>
              <span>row {at + 1}</span>
              <button type="button" className="button small" onClick={() => void step(-1)} disabled={at <= 0}>
                ↑ previous <kbd>k</kbd>
              </button>
              <button type="button" className="button small" onClick={() => void step(1)}>
                ↓ next <kbd>j</kbd>
              </button>
            </>
          ) : null}
        </div>
        <ErrorNotice error={detail.error} />
        {d ? <InstanceBody detail={d} labels={<LabelsCard target={{ instanceId: d.id }} />} /> : null}
      </div>
    </div>
  );
}
