/**
 * A short table (a site's top 25 referring domains, a tracking's keywords) drawn as a plain
 * <table> — every row in the DOM, so the page's find and copy work — and sortable by any
 * column with a value, like the virtual table.
 */
import { useMemo, useState } from 'preact/hooks';
import { ariaSort, SortableLabel, sortRows, type Column, type Sort } from './sorting';

interface Props<T> {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  label: string;
  /** Extra classes of the table (e.g. `rank-table`). */
  class?: string;
  /** Extra classes of a row (e.g. `selected`). */
  rowClass?: (row: T) => string;
  initialSort?: Sort | null;
}

export function PlainTable<T>(props: Props<T>) {
  const { rows, columns, rowKey, label, rowClass } = props;
  const [sort, setSort] = useState<Sort | null>(props.initialSort ?? null);
  const sorted = useMemo(() => sortRows(rows, columns, sort), [rows, columns, sort]);
  return (
    <table class={`plain ${props.class ?? ''}`} aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.key} class={c.align === 'right' ? 'right' : undefined} aria-sort={ariaSort(sort, c.key)}>
              <SortableLabel column={c} sort={sort} onSort={setSort} />
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {sorted.map((row) => (
          <tr key={rowKey(row)} class={rowClass?.(row)}>
            {columns.map((c) => (
              <td key={c.key} class={`${c.align === 'right' ? 'right' : ''} ${c.cellClass?.(row) ?? ''}`.trim() || undefined}>
                {c.render(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
