import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
  type VisibilityState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useKeys } from '../hooks';

/**
 * The server-side table: sorting, filtering and paging happen in SQL; the browser only holds
 * the pages around what is on screen. Rows are virtualised, so a million rows scroll like a
 * hundred. Column definitions, sort state and visibility come from @tanstack/react-table.
 */

export interface ColumnMeta {
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

export interface DataTableProps<Row extends { id: number }> {
  columns: Column<Row>[];
  /** Changes whenever the filter or sort changes: the loaded pages are then dropped. */
  queryKey: string;
  total: number | undefined;
  fetchPage: (offset: number, limit: number) => Promise<Row[]>;
  sort: { column: string; direction: 'asc' | 'desc' };
  onSort: (column: string, direction: 'asc' | 'desc') => void;
  visibility: VisibilityState;
  selected: number;
  onSelect: (index: number) => void;
  onOpen: (row: Row, index: number) => void;
  emptyText: string;
  /** Bumped to refetch the loaded pages (after an import). */
  version?: number;
}

export function DataTable<Row extends { id: number }>(props: DataTableProps<Row>) {
  const { columns, queryKey, total, fetchPage, sort, selected, onSelect, onOpen, version } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [pages, setPages] = useState<Map<number, Row[]>>(new Map());
  const requested = useRef(new Set<number>());
  const generation = useRef(0);
  const count = Math.min(total ?? 0, MAX_ROWS);

  useEffect(() => {
    generation.current++;
    requested.current = new Set();
    setPages(new Map());
  }, [queryKey, version]);

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  // Load the pages that the visible rows fall in (and the one after, for smooth scrolling).
  useEffect(() => {
    if (count === 0) return;
    const wanted = new Set<number>();
    for (let page = Math.floor(first / PAGE); page <= Math.floor(Math.min(last + PAGE / 2, count - 1) / PAGE); page++) wanted.add(page);
    const current = generation.current;
    for (const page of wanted) {
      if (requested.current.has(page)) continue;
      requested.current.add(page);
      fetchPage(page * PAGE, PAGE).then(
        (rows) => {
          if (current === generation.current) setPages((map) => new Map(map).set(page, rows));
        },
        () => requested.current.delete(page),
      );
    }
  }, [first, last, count, fetchPage, pages]);

  const rowAt = (index: number): Row | undefined => pages.get(Math.floor(index / PAGE))?.[index % PAGE];
  const visibleRows = useMemo(() => {
    const rows: Row[] = [];
    for (const item of items) {
      const row = pages.get(Math.floor(item.index / PAGE))?.[item.index % PAGE];
      if (row) rows.push(row);
    }
    return rows;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pages, first, last]);

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

  // Keep the selected row in view when returning to the list.
  useEffect(() => {
    if (selected > 0 && selected < count) virtualizer.scrollToIndex(selected, { align: 'center' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queryKey, count > 0]);

  return (
    <div className="grid" ref={scrollRef} role="grid" aria-rowcount={count} data-testid="grid">
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
                props.onSort(meta.sortKey, active && sort.direction === 'asc' ? 'desc' : 'asc');
              }}
              title={meta.sortKey ? `Sort by ${meta.label}` : undefined}
            >
              {flexRender(header.column.columnDef.header, header.getContext())}
              {active ? <span aria-hidden>{sort.direction === 'asc' ? '▲' : '▼'}</span> : null}
            </div>
          );
        })}
      </div>
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
