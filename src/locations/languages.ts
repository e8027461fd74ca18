/**
 * Languages, identified by the public Google Ads language criterion ids (1000 English,
 * 1001 German, ...). Id 0 means any language.
 */
export interface Language {
  _id: number;
  code: string | null;
  label: string;
}

export const ANY_LANGUAGE: Language = { _id: 0, code: null, label: 'Any language' };

export const LANGUAGES: readonly Language[] = [
  { _id: 1000, code: 'en', label: 'English' },
  { _id: 1001, code: 'de', label: 'German' },
  { _id: 1002, code: 'fr', label: 'French' },
  { _id: 1003, code: 'es', label: 'Spanish' },
  { _id: 1004, code: 'it', label: 'Italian' },
  { _id: 1005, code: 'ja', label: 'Japanese' },
  { _id: 1009, code: 'da', label: 'Danish' },
  { _id: 1010, code: 'nl', label: 'Dutch' },
  { _id: 1011, code: 'fi', label: 'Finnish' },
  { _id: 1012, code: 'ko', label: 'Korean' },
  { _id: 1013, code: 'no', label: 'Norwegian' },
  { _id: 1014, code: 'pt', label: 'Portuguese' },
  { _id: 1015, code: 'sv', label: 'Swedish' },
  { _id: 1017, code: 'zh_CN', label: 'Chinese (simplified)' },
  { _id: 1018, code: 'zh_TW', label: 'Chinese (traditional)' },
  { _id: 1019, code: 'ar', label: 'Arabic' },
  { _id: 1020, code: 'bg', label: 'Bulgarian' },
  { _id: 1021, code: 'cs', label: 'Czech' },
  { _id: 1022, code: 'el', label: 'Greek' },
  { _id: 1023, code: 'hi', label: 'Hindi' },
  { _id: 1024, code: 'hu', label: 'Hungarian' },
  { _id: 1025, code: 'id', label: 'Indonesian' },
  { _id: 1027, code: 'iw', label: 'Hebrew' },
  { _id: 1028, code: 'lv', label: 'Latvian' },
  { _id: 1029, code: 'lt', label: 'Lithuanian' },
  { _id: 1030, code: 'pl', label: 'Polish' },
  { _id: 1031, code: 'ru', label: 'Russian' },
  { _id: 1032, code: 'ro', label: 'Romanian' },
  { _id: 1033, code: 'sk', label: 'Slovak' },
  { _id: 1034, code: 'sl', label: 'Slovenian' },
  { _id: 1035, code: 'sr', label: 'Serbian' },
  { _id: 1036, code: 'uk', label: 'Ukrainian' },
  { _id: 1037, code: 'tr', label: 'Turkish' },
  { _id: 1038, code: 'ca', label: 'Catalan' },
  { _id: 1039, code: 'hr', label: 'Croatian' },
  { _id: 1040, code: 'vi', label: 'Vietnamese' },
  { _id: 1043, code: 'et', label: 'Estonian' },
  { _id: 1044, code: 'th', label: 'Thai' },
];

const byId = new Map<number, Language>(LANGUAGES.map((l) => [l._id, l]));
byId.set(0, ANY_LANGUAGE);

/** The language with this criterion id (0 = any language), or undefined when unknown. */
export function languageById(id: number): Language | undefined {
  return byId.get(id);
}

/** The main search language of a country (ISO 3166 alpha-2, either case); English otherwise. */
export function defaultLanguageFor(countryCode: string | null | undefined): Language {
  const cc = (countryCode ?? '').toLowerCase();
  const lang = COUNTRY_LANGUAGE[cc];
  return (lang !== undefined && byId.get(lang)) || byId.get(1000)!;
}

const COUNTRY_LANGUAGE: Record<string, number> = {
  de: 1001,
  at: 1001,
  ch: 1001,
  li: 1001,
  fr: 1002,
  be: 1002,
  lu: 1002,
  mc: 1002,
  sn: 1002,
  ci: 1002,
  cm: 1002,
  ma: 1002,
  tn: 1002,
  dz: 1002,
  es: 1003,
  mx: 1003,
  ar: 1003,
  co: 1003,
  cl: 1003,
  pe: 1003,
  ve: 1003,
  ec: 1003,
  gt: 1003,
  cu: 1003,
  bo: 1003,
  do: 1003,
  hn: 1003,
  py: 1003,
  sv: 1003,
  ni: 1003,
  cr: 1003,
  pa: 1003,
  uy: 1003,
  it: 1004,
  sm: 1004,
  va: 1004,
  jp: 1005,
  dk: 1009,
  nl: 1010,
  fi: 1011,
  kr: 1012,
  no: 1013,
  pt: 1014,
  br: 1014,
  ao: 1014,
  se: 1015,
  cn: 1017,
  tw: 1018,
  hk: 1018,
  sa: 1019,
  ae: 1019,
  eg: 1019,
  jo: 1019,
  bh: 1019,
  kw: 1019,
  qa: 1019,
  bg: 1020,
  cz: 1021,
  gr: 1022,
  cy: 1022,
  in: 1023,
  hu: 1024,
  id: 1025,
  il: 1027,
  lv: 1028,
  lt: 1029,
  pl: 1030,
  ru: 1031,
  by: 1031,
  kz: 1031,
  ro: 1032,
  md: 1032,
  sk: 1033,
  si: 1034,
  rs: 1035,
  ua: 1036,
  tr: 1037,
  hr: 1039,
  vn: 1040,
  ee: 1043,
  th: 1044,
};
