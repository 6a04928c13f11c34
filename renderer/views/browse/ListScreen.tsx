import type { VisibilityState } from '@tanstack/react-table';
import { useEffect, useMemo, useRef, useState, type ComponentProps, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { listStateToSearch, type BaseQuestionListState, type InstanceListState } from '../../list-params';
import { DataTable, type Column } from '../../components/DataTable';
import { ErrorNotice, plural } from '../../components/bits';
import { useKeys } from '../../hooks';

/**
 * One list screen for both tables (instances, base questions): facets on the left, then the tabs,
 * the search box, the count and the column chooser over a virtual table, with the whole state in
 * the URL. The two views differ only in what they list, their facets and their columns.
 */

type Kind = 'instances' | 'base-questions';

// The source ID is on the instance page; hidden here, the other columns fit a 1440-px window.
const HIDDEN_BY_DEFAULT: Record<Kind, VisibilityState> = {
  instances: { source: false, stage: false, updated: false },
  'base-questions': {},
};

function useVisibility(kind: Kind): [VisibilityState, (v: VisibilityState) => void] {
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

function Tabs({ active }: { active: Kind }) {
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


type ListState = InstanceListState | BaseQuestionListState;

/**
 * A search filters the table and keeps its order (by id unless a column is chosen): the first
 * page comes as soon as it is found. Best match ranks every match by bm25 first, so on a broad
 * search it takes longer; pressing again goes back to the table's order.
 */
function BestMatch<State extends ListState>({ state, update }: { state: State; update: (patch: Partial<State>) => void }) {
  const on = state.sort === 'relevance';
  return (
    <button
      type="button"
      className="button small best-match"
      aria-pressed={on}
      onClick={() => update({ sort: on ? 'id' : 'relevance', direction: 'asc' } as Partial<State>)}
      title={on ? 'Back to the table\'s order' : 'Order the matches by how well they match (slower on a broad search)'}
    >
      Best match first
    </button>
  );
}

/** The list's state from the URL, and a way to change it (typing in the search box replaces the entry; facets and sorting can be gone back over). */
export function useListState<State extends ListState>(kind: Kind, parse: (search: string) => State) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => parse(search), [parse, search]);
  const [selected, setSelected] = useSelectedRow();
  const update = (patch: Partial<State>) => {
    setSelected(0);
    navigate(`/${kind}${listStateToSearch({ ...state, ...patch })}`, { replace: patch.search !== undefined });
  };
  return { state, update, selected, setSelected, listKey: listStateToSearch(state) };
}

interface ListScreenProps<Row extends { id: number }, State extends ListState> {
  kind: Kind;
  /** The row noun for the count ("instance"). */
  noun: string;
  list: ReturnType<typeof useListState<State>>;
  /** A page of the list, as a query. */
  pageQuery: ComponentProps<typeof DataTable<Row>>['pageQuery'];
  facets: ReactNode;
  total: number | undefined;
  error: Error | null;
  columns: Column<Row>[];
  searchPlaceholder: string;
  emptyText: string;
}

export function ListScreen<Row extends { id: number }, State extends ListState>(props: ListScreenProps<Row, State>) {
  const { kind, list, columns } = props;
  const { state, update, listKey } = list;
  const [, navigate] = useLocation();
  const [visibility, setVisibility] = useVisibility(kind);
  return (
    <div className="browse">
      <aside className="facets" aria-label="Filters">
        {props.facets}
      </aside>
      <section className="table-area">
        <div className="toolbar">
          <Tabs active={kind} />
          <SearchBox value={state.search} onChange={(q) => update({ search: q, ...(q || state.sort !== 'relevance' ? {} : { sort: 'id', direction: 'asc' }) } as Partial<State>)} placeholder={props.searchPlaceholder} />
          {state.search ? <BestMatch state={state} update={update} /> : null}
          <span className="summary" data-testid="row-count">
            {plural(props.total, props.noun)}
          </span>
          <ColumnChooser columns={columns} visibility={visibility} onChange={setVisibility} />
        </div>
        <ErrorNotice error={props.error} />
        <DataTable
          columns={columns}
          listKey={listKey}
          total={props.total}
          pageQuery={props.pageQuery}
          sort={{ column: state.sort, direction: state.direction }}
          onSort={(sort, direction) => update({ sort, direction } as Partial<State>)}
          visibility={visibility}
          selected={list.selected}
          onSelect={list.setSelected}
          onOpen={(row, index) => navigate(`/${kind}/${row.id}${listKey ? `${listKey}&` : '?'}at=${index}`)}
          emptyText={state.search ? `No ${props.noun} matches “${state.search}”.` : props.emptyText}
        />
      </section>
    </div>
  );
}
