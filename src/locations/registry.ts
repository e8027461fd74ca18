/**
 * Geotargeting locations: the public Google Ads geotargets (countries, states, regions,
 * counties, cities) shipped in assets/geotargets, loaded once into memory. Parents are
 * derived from canonical names, as the data's README describes: drop the first segment
 * of the canonical name until an entry with that name exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { csvRecords } from './csvRecords.js';
import { searchEngineDomain } from './engineDomains.js';

export const ANYWHERE_ID = 0;

/** 0 anywhere, 1 country, 2 state, 3 region, 4 county, 5 city. */
export type LocationType = 0 | 1 | 2 | 3 | 4 | 5;

export interface Location {
  id: number;
  name: string;
  canonicalName: string;
  /** Lower-case ISO country code ('' for anywhere). */
  code: string;
  /** Upper-case ISO country code ('' for anywhere). */
  countryCode: string;
  type: LocationType;
  targetType: string;
  parentId: number | null;
  engineDomain: string;
  tld: string;
  label: string;
  status: string;
  active: boolean;
  createdAt: number;
}

/** The geotargets build the data comes from (2024-06-28), as Unix seconds. */
const GEOTARGETS_BUILD = Date.UTC(2024, 5, 28) / 1000;

const FILES: { file: string; type: LocationType; targetType: string }[] = [
  { file: 'countries.csv', type: 1, targetType: 'Country' },
  { file: 'states.csv', type: 2, targetType: 'State' },
  { file: 'regions.csv', type: 3, targetType: 'Region' },
  { file: 'counties.csv', type: 4, targetType: 'County' },
  { file: 'cities.csv', type: 5, targetType: 'City' },
];

/** Folds case and accents so that "zurich" finds "Zürich". */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

export class LocationRegistry {
  private readonly byId = new Map<number, Location>();
  private searchable: { loc: Location; name: string; canonical: string }[] | undefined;

  constructor(private readonly locations: Location[]) {
    for (const loc of locations) this.byId.set(loc.id, loc);
  }

  /**
   * The folded names search() reads, built on the first search: folding and sorting 50,000
   * names by locale is a fifth of a second that a start (issue 26) need not wait for.
   */
  private get folded(): { loc: Location; name: string; canonical: string }[] {
    if (this.searchable) return this.searchable;
    const folded: { loc: Location; name: string; canonical: string }[] = [];
    for (const loc of this.locations) {
      if (loc.type === 0) continue;
      folded.push({ loc, name: foldText(loc.name), canonical: foldText(loc.canonicalName) });
    }
    // Countries first, then by type, then by name: the order search() keeps.
    folded.sort((a, b) => a.loc.type - b.loc.type || a.name.localeCompare(b.name));
    return (this.searchable = folded);
  }

  get(id: number): Location | undefined {
    return this.byId.get(id);
  }

  /**
   * The country a location lies in: itself for a country, undefined for anywhere or unknown.
   * The geotargets file some countries and territories (Taiwan, Hong Kong, Puerto Rico, ...)
   * as top-level regions with no parent; such a place is its own country here, while it
   * keeps the type and target type the data gives it.
   */
  countryOf(id: number): Location | undefined {
    let loc = this.byId.get(id);
    while (loc && loc.type > 1 && loc.parentId !== null) loc = this.byId.get(loc.parentId);
    return loc && loc.type >= 1 && loc.parentId === null && loc.code !== '' ? loc : undefined;
  }

  countries(): Location[] {
    return [...this.byId.values()].filter((l) => l.type === 1);
  }

  /**
   * Up to `limit` active locations whose name or canonical name contains the query,
   * countries first; within a type, names starting with the query come before others.
   */
  search(query: string, limit = 100): Location[] {
    const q = foldText(query.trim());
    if (q === '') return [];
    const prefix: Location[][] = [[], [], [], [], [], []];
    const other: Location[][] = [[], [], [], [], [], []];
    for (const { loc, name, canonical } of this.folded) {
      if (!loc.active) continue;
      if (name.startsWith(q)) prefix[loc.type].push(loc);
      else if (name.includes(q) || canonical.includes(q)) other[loc.type].push(loc);
    }
    const out: Location[] = [];
    for (let t = 1; t <= 5 && out.length < limit; t++) {
      for (const loc of [...prefix[t], ...other[t]]) {
        out.push(loc);
        if (out.length === limit) break;
      }
    }
    return out;
  }
}

function assetsDir(): string {
  // src/locations → ../../assets (also right from dist/locations).
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'geotargets');
}

function readLocations(dir: string): Location[] {
  const rows: { id: number; name: string; canonical: string; cc: string; type: LocationType; targetType: string }[] = [];
  for (const { file, type, targetType } of FILES) {
    const records = csvRecords(fs.readFileSync(path.join(dir, file), 'utf8'), 1);
    for (const r of records) rows.push({ id: Number(r[0]), name: r[1], canonical: r[2], cc: r[5], type, targetType });
  }
  const byCanonical = new Map<string, number>();
  // Countries first so that a canonical name shared across files resolves to the broader place.
  for (const r of rows) if (!byCanonical.has(r.canonical)) byCanonical.set(r.canonical, r.id);

  const anywhere: Location = {
    id: ANYWHERE_ID,
    name: 'Anywhere',
    canonicalName: 'Anywhere',
    code: '',
    countryCode: '',
    type: 0,
    targetType: 'Anywhere',
    parentId: null,
    engineDomain: 'google.com',
    tld: 'com',
    label: 'Anywhere',
    status: 'Active',
    active: true,
    createdAt: GEOTARGETS_BUILD,
  };
  const locations: Location[] = [anywhere];
  for (const r of rows) {
    let parentId: number | null = null;
    if (r.type > 1) {
      let segments = r.canonical.split(',').slice(1);
      while (segments.length > 0 && parentId === null) {
        parentId = byCanonical.get(segments.join(',')) ?? null;
        segments = segments.slice(1);
      }
    }
    const engineDomain = searchEngineDomain(r.cc);
    locations.push({
      id: r.id,
      name: r.name,
      canonicalName: r.canonical,
      code: r.cc,
      countryCode: r.cc.toUpperCase(),
      type: r.type,
      targetType: r.targetType,
      parentId,
      engineDomain,
      tld: engineDomain.slice('google.'.length),
      label: r.canonical.split(',').join(', '),
      status: 'Active',
      active: true,
      createdAt: GEOTARGETS_BUILD,
    });
  }
  return locations;
}

let shared: LocationRegistry | undefined;

/** The registry of the shipped geotargets, loaded on first use. */
export function loadLocations(): LocationRegistry {
  shared ??= new LocationRegistry(readLocations(assetsDir()));
  return shared;
}
