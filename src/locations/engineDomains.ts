/**
 * The search engine's domain per country. Most countries use google.<cc>; the ones below
 * use a second-level form (google.co.uk, google.com.au, ...). Territories without a
 * domain of their own fall back to google.com.
 */
const CO: ReadonlySet<string> = new Set([
  'ao', 'bw', 'ck', 'cr', 'id', 'il', 'in', 'jp', 'ke', 'kr', 'ls', 'ma', 'mz', 'nz', 'th', 'tz',
  'ug', 'uz', 've', 'vi', 'za', 'zm', 'zw',
]);
const COM: ReadonlySet<string> = new Set([
  'af', 'ag', 'ai', 'ar', 'au', 'bd', 'bh', 'bn', 'bo', 'br', 'bz', 'co', 'cu', 'cy', 'do', 'ec',
  'eg', 'et', 'fj', 'gh', 'gi', 'gt', 'hk', 'jm', 'kh', 'kw', 'lb', 'ly', 'mm', 'mt', 'mx', 'my',
  'na', 'ng', 'ni', 'np', 'om', 'pa', 'pe', 'pg', 'ph', 'pk', 'pr', 'py', 'qa', 'sa', 'sb', 'sg',
  'sl', 'sv', 'tj', 'tr', 'tw', 'ua', 'uy', 'vc', 'vn',
]);
const SPECIAL: Readonly<Record<string, string>> = {
  us: 'google.com',
  gb: 'google.co.uk',
  aq: 'google.com',
  um: 'google.com',
  hm: 'google.com',
  gs: 'google.com',
  bl: 'google.fr',
  mf: 'google.fr',
  pm: 'google.fr',
  tf: 'google.fr',
  nc: 'google.fr',
  pf: 'google.fr',
  wf: 'google.fr',
  bq: 'google.nl',
  cw: 'google.nl',
  sx: 'google.nl',
  mp: 'google.com',
  gu: 'google.com',
  mh: 'google.com',
  pw: 'google.com',
  ss: 'google.com',
  er: 'google.com',
  ye: 'google.com',
  sd: 'google.com',
  kp: 'google.com',
};

export function searchEngineDomain(countryCode: string): string {
  const cc = countryCode.toLowerCase();
  if (cc === '') return 'google.com';
  if (SPECIAL[cc]) return SPECIAL[cc];
  if (CO.has(cc)) return `google.co.${cc}`;
  if (COM.has(cc)) return `google.com.${cc}`;
  return `google.${cc}`;
}
