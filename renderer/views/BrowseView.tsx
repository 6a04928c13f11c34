import type { VisibilityState } from '@tanstack/react-table';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { BaseQuestionRow, InstanceRow } from '../../shared/api';
import { AMBIGUITY_TYPES, type AmbiguityType } from '../../shared/domain';
import {
  listStateToSearch,
  parseBaseQuestionParams,
  parseInstanceParams,
  type BaseQuestionListState,
  type InstanceListState,
} from '../list-params';
import { matchRanges } from '../../shared/search';
import { DataTable, type Column } from '../components/DataTable';
import { Facet } from '../components/Facets';
import { Highlight } from '../components/Highlight';
import { ErrorNotice, plural, StatusWord, TypeTag } from '../components/bits';
import { useKeys } from '../hooks';
import { opQuery, useOp } from '../query';

/** Cell text with the search words marked; the whole text on hover, as the cell cuts it short. */
function SearchText({ text, query }: { text: string; query: string }) {
  return (
    <span title={text}>
      <Highlight text={text} marks={matchRanges(text, query).map((r) => ({ ...r, className: '' }))} />
    </span>
  );
}

/** A cell that may be cut short, with its whole text on hover. */
function Clipped({ text, mono = false }: { text: string; mono?: boolean }) {
  return (
    <span className={mono ? 'mono' : undefined} title={text}>
      {text}
    </span>
  );
}

function instanceColumns(search: string): Column<InstanceRow>[] {
  return [
    { id: 'id', header: 'ID', accessorKey: 'id', meta: { width: '72px', numeric: true, sortKey: 'id', label: 'ID' } },
    {
      id: 'question',
      header: 'Question',
      cell: ({ row }) => <SearchText text={row.original.question} query={search} />,
      // The question takes what the other columns leave: they are sized to fit a 1440-px window.
      meta: { width: 'minmax(200px, 1fr)', sortKey: 'question', label: 'question' },
    },
    {
      id: 'type',
      header: 'Type',
      cell: ({ row }) => <TypeTag type={row.original.ambiguityType} />,
      meta: { width: '116px', sortKey: 'ambiguity_type', label: 'type' },
    },
    {
      id: 'status',
      header: 'Status',
      cell: ({ row }) => <StatusWord status={row.original.status} />,
      meta: { width: '96px', sortKey: 'status', label: 'status' },
    },
    {
      id: 'interpretations',
      header: 'Interpretations',
      accessorKey: 'interpretationCount',
      meta: { width: '136px', numeric: true, sortKey: 'interpretation_count', label: 'interpretations' },
    },
    {
      id: 'hops',
      header: 'Hops',
      cell: ({ row }) => row.original.hops ?? '–',
      meta: { width: '60px', numeric: true, sortKey: 'hops', label: 'hops' },
    },
    {
      id: 'dataset',
      header: 'Dataset',
      cell: ({ row }) => <Clipped text={row.original.dataset} />,
      meta: { width: '172px', sortKey: 'dataset', label: 'dataset' },
    },
    {
      id: 'source',
      header: 'Source ID',
      cell: ({ row }) => <Clipped text={row.original.sourceId} mono />,
      meta: { width: '170px', sortKey: 'source_id', label: 'source ID' },
    },
    { id: 'stage', header: 'Stage', accessorKey: 'stage', meta: { width: '90px', sortKey: 'stage', label: 'stage' } },
    {
      id: 'updated',
      header: 'Updated',
      cell: ({ row }) => row.original.updatedAt.slice(0, 16).replace('T', ' '),
      meta: { width: '130px', sortKey: 'updated_at', label: 'updated' },
    },
  ];
}

function baseQuestionColumns(search: string): Column<BaseQuestionRow>[] {
  return [
    { id: 'id', header: 'ID', accessorKey: 'id', meta: { width: '72px', numeric: true, sortKey: 'id', label: 'ID' } },
    {
      id: 'question',
      header: 'Question',
      cell: ({ row }) => <SearchText text={row.original.question} query={search} />,
      // The question takes what the other columns leave: they are sized to fit a 1440-px window.
      meta: { width: 'minmax(200px, 1fr)', sortKey: 'question', label: 'question' },
    },
    {
      id: 'answer',
      header: 'Answer',
      cell: ({ row }) => (row.original.answer !== null ? <Clipped text={row.original.answer} /> : <span className="muted">–</span>),
      meta: { width: '200px', sortKey: 'answer', label: 'answer' },
    },
    {
      id: 'hops',
      header: 'Hops',
      cell: ({ row }) => row.original.hops ?? '–',
      meta: { width: '60px', numeric: true, sortKey: 'hops', label: 'hops' },
    },
    { id: 'instances', header: 'Instances', accessorKey: 'instanceCount', meta: { width: '84px', numeric: true, label: 'instances' } },
    {
      id: 'dataset',
      header: 'Dataset',
      cell: ({ row }) => <Clipped text={row.original.dataset} />,
      meta: { width: '172px', sortKey: 'dataset', label: 'dataset' },
    },
    {
      id: 'source',
      header: 'Source ID',
      cell: ({ row }) => <Clipped text={row.original.sourceId} mono />,
      meta: { width: '190px', sortKey: 'source_id', label: 'source ID' },
    },
  ];
}

// The source ID is on the instance page; hidden here, the other columns fit a 1440-px window.
const HIDDEN_BY_DEFAULT: Record<'instances' | 'base-questions', VisibilityState> = {
  instances: { source: false, stage: false, updated: false },
  'base-questions': {},
};

function useVisibility(kind: 'instances' | 'base-questions'): [VisibilityState, (v: VisibilityState) => void] {
  const key = `awb.columns.${kind}`;
  const [visibility, setVisibility] = useState<VisibilityState>(() => {
    try {
      return { ...HIDDEN_BY_DEFAULT[kind], ...(JSON.parse(localStorage.getItem(key) ?? '{}') as VisibilityState) };
    } catch {
      return HIDDEN_BY_DEFAULT[kind];
    }
  });
  const update = (v: VisibilityState) => {
    setVisibility(v);
    localStorage.setItem(key, JSON.stringify(v));
  };
  return [visibility, update];
}

function ColumnChooser<Row>({ columns, visibility, onChange }: { columns: Column<Row>[]; visibility: VisibilityState; onChange: (v: VisibilityState) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="columns-menu">
      <button type="button" className="button small" onClick={() => setOpen(!open)} aria-expanded={open}>
        Columns ▾
      </button>
      {open ? (
        <div className="menu" onMouseLeave={() => setOpen(false)}>
          {columns.map((c) => (
            <label key={c.id} className="check">
              <input
                type="checkbox"
                checked={visibility[c.id] !== false}
                disabled={c.id === 'question'}
                onChange={(e) => onChange({ ...visibility, [c.id]: e.target.checked })}
              />
              {c.meta.label}
            </label>
          ))}
        </div>
      ) : null}
    </div>
  );
}

function useSelectedRow(): [number, (index: number) => void] {
  const search = useSearch();
  const initial = Number(new URLSearchParams(search).get('row') ?? 0);
  const [selected, setSelected] = useState(Number.isInteger(initial) && initial >= 0 ? initial : 0);
  return [selected, setSelected];
}

/** The search box: `/` focuses it, Esc clears it; typing updates the URL after a short pause. */
function SearchBox({ value, onChange, placeholder }: { value: string; onChange: (v: string) => void; placeholder: string }) {
  const [text, setText] = useState(value);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), 180);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  useKeys((event) => {
    if (event.key === '/' && document.activeElement !== input.current) {
      event.preventDefault();
      input.current?.focus();
    } else if (event.key === 'Escape' && document.activeElement === input.current) {
      setText('');
      onChange('');
      input.current?.blur();
    }
  });
  return (
    <div className="search">
      <input
        ref={input}
        className="input"
        type="search"
        aria-label="Search"
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === 'ArrowDown') {
            onChange(text);
            input.current?.blur();
          }
        }}
      />
    </div>
  );
}

function Tabs({ active }: { active: 'instances' | 'base-questions' }) {
  return (
    <nav className="tabs" aria-label="Tables">
      <Link href="/instances" className={active === 'instances' ? 'active' : ''}>
        Instances
      </Link>
      <Link href="/base-questions" className={active === 'base-questions' ? 'active' : ''}>
        Base questions
      </Link>
    </nav>
  );
}

export function InstancesView() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => parseInstanceParams(search), [search]);
  const [selected, setSelected] = useSelectedRow();
  const [visibility, setVisibility] = useVisibility('instances');
  const filter = { datasets: state.datasets, types: state.types, statuses: state.statuses, hops: state.hops, search: state.search };
  const facets = useOp('instance:facets', filter);
  const listKey = listStateToSearch(state);
  const update = (patch: Partial<InstanceListState>) => {
    setSelected(0);
    // Typing in the search box replaces the entry; facet and sort changes can be gone back over.
    navigate(`/instances${listStateToSearch({ ...state, ...patch })}`, { replace: patch.search !== undefined });
  };
  const pageQuery = useCallback((offset: number, limit: number) => opQuery('instance:list', { ...state, offset, limit }), [state]);
  const columns = useMemo(() => instanceColumns(state.search), [state.search]);
  const typeOptions = facets.data?.types ?? [];
  const allTypes = AMBIGUITY_TYPES.map((t) => typeOptions.find((o) => o.value === t) ?? { value: t, label: t, count: 0 });

  return (
    <div className="browse">
      <aside className="facets" aria-label="Filters">
        <Facet
          title="Type"
          options={facets.data ? allTypes : undefined}
          selected={state.types}
          onChange={(types) => update({ types: types as AmbiguityType[] })}
          render={(o) => <span className={`tag tag-${o.value}`}>{o.label}</span>}
        />
        <Facet title="Status" options={facets.data?.statuses} selected={state.statuses} onChange={(statuses) => update({ statuses })} />
        <Facet
          title="Hops"
          options={facets.data?.hops}
          selected={state.hops.map((h) => (h === 0 ? null : h))}
          onChange={(hops) => update({ hops: hops.map((h) => h ?? 0) })}
        />
        <Facet title="Dataset" options={facets.data?.datasets} selected={state.datasets} onChange={(datasets) => update({ datasets })} />
      </aside>
      <section className="table-area">
        <div className="toolbar">
          <Tabs active="instances" />
          <SearchBox value={state.search} onChange={(q) => update({ search: q, sort: q ? 'relevance' : 'id' })} placeholder="Search questions, interpretations and answers  ( / )" />
          <span className="summary" data-testid="row-count">
            {plural(facets.data?.total, 'instance')}
          </span>
          <ColumnChooser columns={columns} visibility={visibility} onChange={setVisibility} />
        </div>
        <ErrorNotice error={facets.error} />
        <DataTable
          columns={columns}
          listKey={listKey}
          total={facets.data?.total}
          pageQuery={pageQuery}
          sort={{ column: state.sort, direction: state.direction }}
          onSort={(sort, direction) => update({ sort: sort as InstanceListState['sort'], direction })}
          visibility={visibility}
          selected={selected}
          onSelect={setSelected}
          onOpen={(row, index) => navigate(`/instances/${row.id}${listKey ? `${listKey}&` : '?'}at=${index}`)}
          emptyText={state.search ? `No instance matches “${state.search}”.` : 'No instances yet. Import a dataset (Ctrl+I), or run the pipeline.'}
        />
      </section>
    </div>
  );
}

export function BaseQuestionsView() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => parseBaseQuestionParams(search), [search]);
  const [selected, setSelected] = useSelectedRow();
  const [visibility, setVisibility] = useVisibility('base-questions');
  const filter = { datasets: state.datasets, hops: state.hops, search: state.search };
  const facets = useOp('base-question:facets', filter);
  const listKey = listStateToSearch(state);
  const update = (patch: Partial<BaseQuestionListState>) => {
    setSelected(0);
    navigate(`/base-questions${listStateToSearch({ ...state, ...patch })}`, { replace: patch.search !== undefined });
  };
  const pageQuery = useCallback((offset: number, limit: number) => opQuery('base-question:list', { ...state, offset, limit }), [state]);
  const columns = useMemo(() => baseQuestionColumns(state.search), [state.search]);
  return (
    <div className="browse">
      <aside className="facets" aria-label="Filters">
        <Facet
          title="Hops"
          options={facets.data?.hops}
          selected={state.hops.map((h) => (h === 0 ? null : h))}
          onChange={(hops) => update({ hops: hops.map((h) => h ?? 0) })}
        />
        <Facet title="Dataset" options={facets.data?.datasets} selected={state.datasets} onChange={(datasets) => update({ datasets })} />
      </aside>
      <section className="table-area">
        <div className="toolbar">
          <Tabs active="base-questions" />
          <SearchBox value={state.search} onChange={(q) => update({ search: q, sort: q ? 'relevance' : 'id' })} placeholder="Search questions and answers  ( / )" />
          <span className="summary" data-testid="row-count">
            {plural(facets.data?.total, 'base question')}
          </span>
          <ColumnChooser columns={columns} visibility={visibility} onChange={setVisibility} />
        </div>
        <ErrorNotice error={facets.error} />
        <DataTable
          columns={columns}
          listKey={listKey}
          total={facets.data?.total}
          pageQuery={pageQuery}
          sort={{ column: state.sort, direction: state.direction }}
          onSort={(sort, direction) => update({ sort: sort as BaseQuestionListState['sort'], direction })}
          visibility={visibility}
          selected={selected}
          onSelect={setSelected}
          onOpen={(row, index) => navigate(`/base-questions/${row.id}${listKey ? `${listKey}&` : '?'}at=${index}`)}
          emptyText={state.search ? `No base question matches “${state.search}”.` : 'No base questions yet. Import a dataset (Ctrl+I).'}
        />
      </section>
    </div>
  );
}
