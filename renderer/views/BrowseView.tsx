import type { FacetCount } from '../../shared/api';
import { useCallback, useMemo } from 'react';
import type { AmbiguityType } from '../../shared/domain';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import { Facet } from '../components/Facets';
import { parseBaseQuestionParams, parseInstanceParams } from '../list-params';
import { opQuery, useOp } from '../query';
import { baseQuestionColumns, instanceColumns } from './browse/columns';
import { ListScreen, useListState } from './browse/ListScreen';

/** The two tables: instances (with type and status facets) and base questions, on one list screen. */

export function InstancesView() {
  const list = useListState('instances', parseInstanceParams);
  const { state, update } = list;
  const facets = useOp('instance:facets', { datasets: state.datasets, types: state.types, statuses: state.statuses, hops: state.hops, search: state.search });
  const pageQuery = useCallback((offset: number, limit: number) => opQuery('instance:list', { ...state, offset, limit }), [state]);
  const columns = useMemo(() => instanceColumns(state.search), [state.search]);
  const typeOptions = facets.data?.types ?? [];
  const allTypes = AMBIGUITY_TYPES.map((t) => typeOptions.find((o) => o.value === t) ?? { value: t, label: t, count: 0 });
  return (
    <ListScreen
      kind="instances"
      noun="instance"
      list={list}
      pageQuery={pageQuery}
      columns={columns}
      total={facets.data?.total}
      error={facets.error}
      searchPlaceholder="Search questions, interpretations and answers  ( / )"
      emptyText="No instances yet. Import a dataset (Ctrl+I), or run the pipeline."
      facets={
        <>
          <Facet
            title="Type"
            options={facets.data ? allTypes : undefined}
            selected={state.types}
            onChange={(types) => update({ types: types as AmbiguityType[] })}
            render={(o) => <span className={`tag tag-${o.value}`}>{o.label}</span>}
          />
          <Facet title="Status" options={facets.data?.statuses} selected={state.statuses} onChange={(statuses) => update({ statuses })} />
          <HopsAndDatasets facets={facets.data} state={state} update={update} />
        </>
      }
    />
  );
}

export function BaseQuestionsView() {
  const list = useListState('base-questions', parseBaseQuestionParams);
  const { state, update } = list;
  const facets = useOp('base-question:facets', { datasets: state.datasets, hops: state.hops, search: state.search });
  const pageQuery = useCallback((offset: number, limit: number) => opQuery('base-question:list', { ...state, offset, limit }), [state]);
  const columns = useMemo(() => baseQuestionColumns(state.search), [state.search]);
  return (
    <ListScreen
      kind="base-questions"
      noun="base question"
      list={list}
      pageQuery={pageQuery}
      columns={columns}
      total={facets.data?.total}
      error={facets.error}
      searchPlaceholder="Search questions and answers  ( / )"
      emptyText="No base questions yet. Import a dataset (Ctrl+I)."
      facets={<HopsAndDatasets facets={facets.data} state={state} update={update} />}
    />
  );
}


/** The facets both tables have. */
function HopsAndDatasets({
  facets,
  state,
  update,
}: {
  facets: { hops: FacetCount<number | null>[]; datasets: FacetCount<number>[] } | undefined;
  state: { hops: number[]; datasets: number[] };
  update: (patch: { hops?: number[]; datasets?: number[] }) => void;
}) {
  return (
    <>
      <Facet title="Hops" options={facets?.hops} selected={state.hops.map((h) => (h === 0 ? null : h))} onChange={(hops) => update({ hops: hops.map((h) => h ?? 0) })} />
      <Facet title="Dataset" options={facets?.datasets} selected={state.datasets} onChange={(datasets) => update({ datasets })} />
    </>
  );
}
