/**
 * A table that renders only the rows in view (plus a few either side): 10,000 related
 * keywords stay 10,000 objects in memory but a few dozen rows in the DOM. Rows have a fixed
 * height, so the scroll position alone says which rows are visible.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export interface Column<T> {
  key: string;
  label: string;
  width?: string;
  align?: 'left' | 'right';
  sortable?: boolean;
  render: (row: T) => ComponentChildren;
}

export interface Sort {
  key: string;
  dir: 'asc' | 'desc';
}

interface Props<T> {
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  rowHeight?: number;
  height?: number;
  sort?: Sort | null;
  onSort?: (sort: Sort) => void;
  onRowClick?: (row: T) => void;
  selectedKey?: string | null;
  label: string;
}

const OVERSCAN = 8;

/**
 * The narrowest a column may get, in px: the first px figure of its width (`90px`,
 * `minmax(160px, 2fr)`), or 100 for a bare fraction. The table is at least their sum wide, so
 * on a phone it scrolls sideways inside its box instead of crushing the cells (or the page).
 */
function minWidth(width: string | undefined): number {
  const px = /(\d+(?:\.\d+)?)px/.exec(width ?? '');
  return px ? Number(px[1]) : 100;
}

export function VirtualTable<T>({ rows, columns, rowKey, rowHeight = 34, height = 480, sort, onSort, onRowClick, selectedKey, label }: Props<T>) {
  const [scrollTop, setScrollTop] = useState(0);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const template = columns.map((c) => c.width ?? '1fr').join(' ');
  const header = (
    <div class="vt-row vt-head" role="row" style={{ gridTemplateColumns: template }}>
      {columns.map((c) => {
        const active = sort?.key === c.key;
        return (
          <div
            key={c.key}
            role="columnheader"
            class={`vt-cell ${c.align === 'right' ? 'right' : ''}`}
            aria-sort={active ? (sort!.dir === 'asc' ? 'ascending' : 'descending') : undefined}
          >
            {c.sortable && onSort ? (
              <button type="button" class="sort" onClick={() => onSort({ key: c.key, dir: active && sort!.dir === 'desc' ? 'asc' : 'desc' })}>
                {c.label} {active ? (sort!.dir === 'desc' ? '▼' : '▲') : ''}
              </button>
            ) : (
              c.label
            )}
          </div>
        );
      })}
    </div>
  );
  const visible = [];
  for (let i = first; i < last; i++) {
    const row = rows[i];
    const key = rowKey(row);
    visible.push(
      <div
        key={key}
        role="row"
        aria-rowindex={i + 2}
        class={`vt-row ${selectedKey === key ? 'selected' : ''} ${onRowClick ? 'clickable' : ''}`}
        style={{ gridTemplateColumns: template, top: `${i * rowHeight}px`, height: `${rowHeight}px` }}
        onClick={onRowClick ? () => onRowClick(row) : undefined}
      >
        {columns.map((c) => (
          <div key={c.key} role="cell" class={`vt-cell ${c.align === 'right' ? 'right' : ''}`}>
            {c.render(row)}
          </div>
        ))}
      </div>,
    );
  }
  const tableMin = columns.reduce((sum, c) => sum + minWidth(c.width), 0);
  return (
    <div class="vt" role="table" aria-label={label} aria-rowcount={rows.length + 1} data-rows={rows.length}>
      <div class="vt-inner" style={{ minWidth: `${tableMin}px` }}>
        {header}
        <div
          class="vt-body"
          style={{ height: `${Math.min(height, Math.max(rowHeight, rows.length * rowHeight))}px` }}
          onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}
        >
          <div class="vt-spacer" style={{ height: `${rows.length * rowHeight}px` }}>
            {visible}
          </div>
        </div>
      </div>
    </div>
  );
}
