import { useQueries } from '@tanstack/react-query';
import {
  type Header,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
  type VisibilityState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import { useKeys } from '../hooks';

/**
 * The server-side table: sorting, filtering and paging happen in SQL; the browser only holds
 * the pages around what is on screen. Rows are virtualised, so a million rows scroll like a
 * hundred. Column definitions, sort state and visibility come from @tanstack/react-table.
 */

interface ColumnMeta {
  /** CSS grid width, e.g. `80px` or `minmax(240px, 1fr)`. */
  width: string;
  numeric?: boolean;
  /** The API's sort column; absent when the column cannot be sorted. */
  sortKey?: string;
  label: string;
}

export type Column<Row> = ColumnDef<Row, unknown> & { id: string; meta: ColumnMeta };

const PAGE = 100;
const ROW_HEIGHT = 30;
/** Browsers cap element heights near 33 million pixels; stay well under. */
const MAX_ROWS = 1_000_000;

/** One page of a list operation, as a query: its key (the operation, filter, sort, offset) and fetch. */
interface PageQuery<Row> {
  queryKey: readonly unknown[];
  queryFn: () => Promise<{ rows: Row[] }>;
}

interface DataTableProps<Row extends { id: number }> {
  columns: Column<Row>[];
  /** Changes whenever the filter or sort changes (the list is then another one). */
  listKey: string;
  total: number | undefined;
  pageQuery: (offset: number, limit: number) => PageQuery<Row>;
  sort: { column: string; direction: 'asc' | 'desc' };
  onSort: (column: string, direction: 'asc' | 'desc') => void;
  visibility: VisibilityState;
  selected: number;
  onSelect: (index: number) => void;
  onOpen: (row: Row, index: number) => void;
  emptyText: string;
}

/** The rows of each page asked for, in order (undefined while a page loads). */
function pageRows<Row>(results: { data?: { rows: Row[] } | undefined }[]): (Row[] | undefined)[] {
  return results.map((r) => r.data?.rows);
}

/** The column heads: a click on a sortable one sorts by it, again to reverse. */
function GridHeader<Row>({
  headers,
  template,
  sort,
  onSort,
}: {
  headers: Header<Row, unknown>[];
  template: string;
  sort: { column: string; direction: 'asc' | 'desc' };
  onSort: (column: string, direction: 'asc' | 'desc') => void;
}) {
  return (
    <div className="grid-header" style={{ gridTemplateColumns: template }} role="row">
      {headers.map((header) => {
        const meta = header.column.columnDef.meta as ColumnMeta;
        const active = meta.sortKey !== undefined && meta.sortKey === sort.column;
        return (
          <div
            key={header.id}
            role="columnheader"
            aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
            className={`cell${meta.numeric ? ' num' : ''}${meta.sortKey ? '' : ' unsortable'}`}
            onClick={() => {
              if (!meta.sortKey) return;
              onSort(meta.sortKey, active && sort.direction === 'asc' ? 'desc' : 'asc');
            }}
            title={meta.sortKey ? `Sort by ${meta.label}` : undefined}
          >
            {flexRender(header.column.columnDef.header, header.getContext())}
            {active ? <span aria-hidden>{sort.direction === 'asc' ? '▲' : '▼'}</span> : null}
          </div>
        );
      })}
    </div>
  );
}

export function DataTable<Row extends { id: number }>(props: DataTableProps<Row>) {
  const { columns, listKey, total, pageQuery, sort, selected, onSelect, onOpen } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const count = Math.min(total ?? 0, MAX_ROWS);

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  // The pages that the visible rows fall in (and the one after, for smooth scrolling). Loaded
  // pages stay cached until the data changes, so scrolling back shows them at once.
  const firstPage = Math.floor(first / PAGE);
  const wanted: number[] = [];
  if (count > 0) for (let page = firstPage; page <= Math.floor(Math.min(last + PAGE / 2, count - 1) / PAGE); page++) wanted.push(page);
  const loaded = useQueries({
    queries: wanted.map((page) => ({ ...pageQuery(page * PAGE, PAGE), staleTime: Infinity })),
    combine: pageRows<Row>,
  });
  const rowAt = (index: number): Row | undefined => loaded[Math.floor(index / PAGE) - firstPage]?.[index % PAGE];
  const visibleRows = useMemo(() => {
    const rows: Row[] = [];
    for (let index = first; index <= last; index++) {
      const row = loaded[Math.floor(index / PAGE) - firstPage]?.[index % PAGE];
      if (row) rows.push(row);
    }
    return rows;
  }, [loaded, first, last, firstPage]);

  const sorting: SortingState = [{ id: sort.column, desc: sort.direction === 'desc' }];
  const table = useReactTable({
    data: visibleRows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => String(row.id),
    manualSorting: true,
    manualFiltering: true,
    manualPagination: true,
    state: { sorting, columnVisibility: props.visibility },
  });
  const headers = table.getHeaderGroups()[0]?.headers ?? [];
  const template = headers.map((h) => (h.column.columnDef.meta as ColumnMeta).width).join(' ');
  const rowsById = table.getRowModel().rowsById;

  const move = (index: number) => {
    if (count === 0) return;
    const next = Math.max(0, Math.min(count - 1, index));
    onSelect(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  useKeys((event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    const pageRows = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW_HEIGHT) - 1);
    const keys: Record<string, () => void> = {
      j: () => move(selected + 1),
      ArrowDown: () => move(selected + 1),
      k: () => move(selected - 1),
      ArrowUp: () => move(selected - 1),
      PageDown: () => move(selected + pageRows),
      PageUp: () => move(selected - pageRows),
      Home: () => move(0),
      End: () => move(count - 1),
      Enter: () => {
        const row = rowAt(selected);
        if (row) onOpen(row, selected);
      },
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // Keep the selected row in view when returning to the list: once per list, when its rows come.
  const restored = useRef<string | null>(null);
  useEffect(() => {
    if (count === 0 || restored.current === listKey) return;
    restored.current = listKey;
    if (selected > 0 && selected < count) virtualizer.scrollToIndex(selected, { align: 'center' });
  }, [listKey, count, selected, virtualizer]);

  return (
    <div className="grid" ref={scrollRef} role="grid" aria-rowcount={count} data-testid="grid">
      <GridHeader headers={headers} template={template} sort={sort} onSort={props.onSort} />
      {total === 0 ? <div className="empty">{props.emptyText}</div> : null}
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const row = rowAt(item.index);
          const model = row ? rowsById[String(row.id)] : undefined;
          return (
            <div
              key={item.key}
              role="row"
              aria-rowindex={item.index + 1}
              aria-selected={item.index === selected}
              data-index={item.index}
              className={`grid-row${item.index === selected ? ' selected' : ''}`}
              style={{ transform: `translateY(${item.start}px)`, gridTemplateColumns: template }}
              onClick={() => onSelect(item.index)}
              onDoubleClick={() => row && onOpen(row, item.index)}
            >
              {model
                ? model.getVisibleCells().map((cell) => {
                    const meta = cell.column.columnDef.meta as ColumnMeta;
                    return (
                      <div key={cell.id} role="gridcell" className={`cell${meta.numeric ? ' num' : ''}`}>
                        {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      </div>
                    );
                  })
                : headers.map((h) => (
                    <div key={h.id} className="cell">
                      <div className="skeleton" />
                    </div>
                  ))}
            </div>
          );
        })}
      </div>
      {(total ?? 0) > MAX_ROWS ? (
        <div className="notice warn small">Showing the first {MAX_ROWS.toLocaleString('en-US')} rows; narrow the filters to see the rest.</div>
      ) : null}
    </div>
  );
}
