/**
 * Column sorting shared by the dashboard's two kinds of table — the virtual one for thousands of
 * rows and the plain one for a few dozen — so that a header click behaves the same in both.
 */
import type { ComponentChildren } from 'preact';

export interface Sort {
  key: string;
  dir: 'asc' | 'desc';
}

/** What a table column is: its header, how a cell is drawn, and the value it sorts by. */
export interface Column<T> {
  key: string;
  label: string;
  width?: string;
  align?: 'left' | 'right';
  sortable?: boolean;
  /**
   * The value the column sorts by (null last whichever the direction). A column with one is
   * sortable; a table without `onSort` then sorts its rows itself.
   */
  value?: (row: T) => number | string | null | undefined;
  render: (row: T) => ComponentChildren;
  /** Extra classes of a cell of this column in a plain table (e.g. `up` for a rise). */
  cellClass?: (row: T) => string;
}

/** Rows sorted by a column's value: numbers by size, text by the locale; missing values last. */
export function sortRows<T>(rows: T[], columns: Pick<Column<T>, 'key' | 'value'>[], sort: Sort | null): T[] {
  const col = sort ? columns.find((c) => c.key === sort.key) : undefined;
  if (!sort || !col?.value) return rows;
  const value = col.value;
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: value(row) }))
    .sort((a, b) => {
      const an = a.v === null || a.v === undefined || a.v === '';
      const bn = b.v === null || b.v === undefined || b.v === '';
      if (an || bn) return an === bn ? a.i - b.i : an ? 1 : -1;
      const d = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v).localeCompare(String(b.v), 'en');
      return d === 0 ? a.i - b.i : sign * d;
    })
    .map((x) => x.row);
}

/** The header's `aria-sort` for a column: set only on the column the rows are sorted by. */
export function ariaSort(sort: Sort | null, key: string): 'ascending' | 'descending' | undefined {
  return sort?.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined;
}

/** A column's header label: a button that sorts by it (highest first, then lowest) where it can. */
export function SortableLabel<T>({ column, sort, onSort }: { column: Column<T>; sort: Sort | null; onSort: (sort: Sort) => void }) {
  if (!column.sortable && !column.value) return <>{column.label}</>;
  const active = sort?.key === column.key;
  return (
    <button type="button" class="sort" onClick={() => onSort({ key: column.key, dir: active && sort!.dir === 'desc' ? 'asc' : 'desc' })}>
      {column.label} {active ? (sort!.dir === 'desc' ? '▼' : '▲') : ''}
    </button>
  );
}
