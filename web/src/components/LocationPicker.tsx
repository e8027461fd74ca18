/** Picks a location from GET /shared/locations (countries first), searching as the user types. */
import { useEffect, useState } from 'preact/hooks';
import { api, data } from '../api';
import type { LocationOption } from '../types';
import { Input, Select } from './Form';

const COMMON: LocationOption[] = [
  { _id: 2840, label: 'United States', type: 1 },
  { _id: 2826, label: 'United Kingdom', type: 1 },
  { _id: 2276, label: 'Germany', type: 1 },
  { _id: 2250, label: 'France', type: 1 },
  { _id: 0, label: 'Anywhere', type: 0 },
];

export function LocationPicker({ value, onChange, name = 'location' }: { value: number; onChange: (id: number) => void; name?: string }) {
  const [query, setQuery] = useState('');
  const [options, setOptions] = useState<LocationOption[]>(COMMON);
  useEffect(() => {
    const q = query.trim();
    if (q.length < 2) {
      setOptions(COMMON);
      return;
    }
    // Waits for a pause in typing: one request per search, not per key.
    const timer = setTimeout(() => {
      data<LocationOption[]>(api.GET('/shared/locations', { params: { query: { query: q } } }))
        .then((found) => setOptions(found.length ? found : []))
        .catch(() => setOptions(COMMON));
    }, 300);
    return () => clearTimeout(timer);
  }, [query]);
  const shown = options.some((o) => o._id === value) ? options : [...COMMON.filter((o) => o._id === value), ...options];
  return (
    <span class="location-picker">
      <Input type="search" placeholder="Find a location…" value={query} onValue={setQuery} aria-label="Find a location" maxLength={100} />
      <Select name={name} value={String(value)} onValue={(v) => onChange(Number(v))} aria-label="Location">
        {shown.map((o) => (
          <option key={o._id} value={String(o._id)}>
            {o.label}
          </option>
        ))}
        {shown.length === 0 && <option disabled>No location matches</option>}
      </Select>
    </span>
  );
}
