/** A set of selected row ids (keywords ticked in a table), with a toggle and a reset. */
import { useCallback, useState } from 'preact/hooks';

export function useSelection() {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = useCallback(
    (id: string) =>
      setSelected((prev) => {
        const next = new Set(prev);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  return { selected, toggle, set: (ids: Iterable<string>) => setSelected(new Set(ids)), clear: () => setSelected(new Set()) };
}
