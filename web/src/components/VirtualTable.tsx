/**
 * A table that renders only the rows in view (plus a few either side): 10,000 related
 * keywords stay 10,000 objects in memory but a few dozen rows in the DOM. Rows have a fixed
 * height, so the scroll position alone says which rows are visible.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { ariaSort, SortableLabel, sortRows, type Column, type Sort } from './sorting';

export { sortRows, type Column, type Sort } from './sorting';

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
  /** The sort a table that sorts itself starts with. */
  initialSort?: Sort | null;
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

export function VirtualTable<T>(props: Props<T>) {
  const { columns, rowKey, rowHeight = 34, height = 480, onRowClick, selectedKey, label } = props;
  const [scrollTop, setScrollTop] = useState(0);
  // A table whose page does not sort (no onSort) sorts itself by the columns' values.
  const [ownSort, setOwnSort] = useState<Sort | null>(props.initialSort ?? null);
  const sort = props.onSort ? (props.sort ?? null) : ownSort;
  const onSort = props.onSort ?? setOwnSort;
  const rows = useMemo(() => (props.onSort ? props.rows : sortRows(props.rows, columns, ownSort)), [props.rows, props.onSort, ownSort, columns]);
  const body = useRef<HTMLDivElement>(null);
  /** Keyboard on a row: Enter or Space opens it, the arrows move to the next or previous one. */
  const onRowKey = (e: KeyboardEvent, i: number) => {
    if ((e.key === 'Enter' || e.key === ' ') && e.target === e.currentTarget && onRowClick) {
      e.preventDefault();
      onRowClick(rows[i]);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = Math.min(rows.length - 1, Math.max(0, i + (e.key === 'ArrowDown' ? 1 : -1)));
      const el = body.current;
      if (!el) return;
      // Bring the row into view (rendering it), then focus it once it is in the DOM.
      if (next * rowHeight < el.scrollTop) el.scrollTop = next * rowHeight;
      else if ((next + 1) * rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = (next + 1) * rowHeight - el.clientHeight;
      setScrollTop(el.scrollTop);
      // A row already rendered (the usual case: the next one is in the overscan) takes the focus
      // now, so a key pressed right after lands on it; one outside the rendered window gets it
      // on the next frame, once the scroll has rendered it.
      const target = () => el.querySelector<HTMLElement>(`[aria-rowindex="${next + 2}"]`);
      const now = target();
      if (now) now.focus();
      else requestAnimationFrame(() => target()?.focus());
    }
  };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / rowHeight) + OVERSCAN);
  const template = columns.map((c) => c.width ?? '1fr').join(' ');
  const header = (
    <div class="vt-row vt-head" role="row" style={{ gridTemplateColumns: template }}>
      {columns.map((c) => (
        <div key={c.key} role="columnheader" class={`vt-cell ${c.align === 'right' ? 'right' : ''}`} aria-sort={ariaSort(sort, c.key)}>
          <SortableLabel column={c} sort={sort} onSort={onSort} />
        </div>
      ))}
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
        tabIndex={onRowClick ? 0 : undefined}
        aria-selected={onRowClick ? selectedKey === key : undefined}
        onKeyDown={(e) => onRowKey(e, i)}
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
          ref={body}
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
