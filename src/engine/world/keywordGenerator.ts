/**
 * Keywords of the sandbox web: heads, attribute phrases, modifiers, questions, brands
 * and "vs" comparisons per niche and language, with heavy-tailed volumes, lognormal CPC
 * tied to the head's price (keywordPrices.ts) and commercial intent, PPC competition and
 * per-country market shares.
 */
import { LANGUAGE_IDS, MARKETS, type WorldLanguage } from './markets.js';
import { MODIFIERS } from './modifiers.js';
import { NICHES } from './niches.js';
import { Rng, hash32 } from './random.js';
import { ATTRIBUTE_SYNONYMS, EN_PATTERNS, clashes, grammarOf, headProfile } from './headProfiles.js';
import { HEAD_CPC } from './keywordPrices.js';

export interface GeneratedKeyword {
  id: number;
  kw: string;
  languageId: number;
  nicheId: number;
  head: string;
  kind: string;
  intent: string;
  volume: number;
  trend: number;
  noiseSeed: number;
  cpc: number;
  ppc: number;
  markets: { locationId: number; share: number }[];
  /** Other keywords of the same search intent (shared volume, CPC, competition): page texts mention them too. */
  synonyms: string[];
  /**
   * A phrasing that does not read as English on its head ("credit score ideas", "best learn
   * python 2026"): drawn like every other keyword, so that the world's random draws (which
   * keywords a tier keeps, every figure, the sites' pages) stay as they were, but never
   * written to the world; a page drawn for it is about another keyword (siteGenerator.ts).
   */
  hidden: boolean;
}

interface Candidate {
  kw: string;
  language: WorldLanguage;
  niche: number;
  head: string;
  kind: string;
  intent: string;
  /** Volume before noise. */
  base: number;
  tier: number;
  /** Synonym family (same intent): its members share volume, CPC, competition and trend. */
  family: string | null;
  /** Drawn but left out (see `hidden` of GeneratedKeyword). */
  hidden: boolean;
}

/**
 * CPC multiplier by the strongest intent, against a commercial keyword's price (a head's,
 * keywordPrices.ts): buyers' queries cost more (advertisers bid on purchase intent),
 * informational ones far less.
 */
function intentCpcFactor(intent: string): number {
  if (intent.includes('transactional')) return 1.4;
  if (intent.includes('commercial')) return 1;
  if (intent.includes('navigational')) return 0.45;
  return 0.2;
}

/**
 * Spread (log-space sigma) of a keyword's CPC around its head's price and intent: a head's
 * own price is the head's (advertisers on "car insurance" all bid on it), a variant's wanders
 * with what it asks for.
 */
const HEAD_CPC_SIGMA = 0.15;
const VARIANT_CPC_SIGMA = 0.55;

function intentPpcRange(intent: string): [number, number] {
  if (intent.includes('transactional')) return [55, 100];
  if (intent.includes('commercial')) return [35, 90];
  if (intent.includes('navigational')) return [10, 50];
  return [0, 30];
}

/** Comparisons people actually search: products of one kind, never "running shoes vs protein powder". */
const VERSUS: readonly (readonly [string, string])[] = [
  ['hiking boots', 'trail running shoes'],
  ['tent', 'hammock'],
  ['treadmill', 'exercise bike'],
  ['dumbbells', 'kettlebell'],
  ['fitness tracker', 'smartwatch'],
  ['french press', 'moka pot'],
  ['espresso machine', 'coffee maker'],
  ['pour over coffee', 'cold brew'],
  ['index funds', 'savings account'],
  ['credit card', 'personal loan'],
  ['all inclusive resorts', 'city break'],
  ['lawn mower', 'hedge trimmer'],
  ['wireless earbuds', 'smartwatch'],
  ['tablet', 'gaming laptop'],
  ['air fryer', 'slow cooker'],
  ['stand mixer', 'slow cooker'],
  ['robot vacuum', 'air purifier'],
  ['online courses', 'coding bootcamp'],
  ['electric cars', 'used cars'],
  ['moisturizer', 'vitamin c serum'],
];

/** Cities for local searches ("oil change in chicago"). */
const CITIES = ['new york', 'los angeles', 'chicago', 'houston', 'london', 'toronto', 'sydney', 'dublin', 'manchester', 'seattle'];

/** The year of "best … 2026" searches: the world's keywords are of its build year. */
const YEAR = '2026';

/** A longer variant draws at most this share of any shorter keyword it contains. */
export const VARIANT_CAP = 0.8;
/** A head containing another head draws at most this share of it. */
const HEAD_IN_HEAD_CAP = 0.35;

const words = (text: string): string[] => text.split(' ');

/** What people search about a brand: suffix, intent, share of the brand's volume, tier, synonym family. */
const BRAND_VARIANTS: readonly (readonly [string, string, number, number, string | null])[] = [
  ['review', 'commercial', 0.05, 1, 'review'],
  ['reviews', 'commercial', 0.05, 1, 'review'],
  ['discount code', 'transactional', 0.03, 2, null],
];

/** Every shorter phrase of consecutive words inside `kw` ("usb c monitor": "usb", "c monitor", "monitor", …). */
export function containedPhrases(kw: string): string[] {
  const w = words(kw);
  const out: string[] = [];
  for (let from = 0; from < w.length; from++) {
    for (let to = from + 1; to <= w.length; to++) if (to - from < w.length) out.push(w.slice(from, to).join(' '));
  }
  return out;
}

/** Whether a pattern, attribute or phrase would repeat or contradict words the phrase has. */
function conflicts(phrase: string, addition: string, extraClashes: readonly string[] = []): boolean {
  const have = ` ${phrase} `;
  for (const w of words(addition.replace(/\{[a-z]+\}/g, ' ').trim()).filter((w) => w.length > 2)) if (have.includes(` ${w} `)) return true;
  for (const c of extraClashes) if (have.includes(` ${c} `)) return true;
  return false;
}

/** Fills an English pattern for a phrase whose head has the given grammar. */
function fill(template: string, phrase: string, head: string): string {
  const g = grammarOf(head, headProfile(head).grammar);
  // The article goes with the phrase's first word ("an ergonomic office chair").
  const a = g.a === '' ? '' : /^[aeio]/.test(phrase) ? 'an ' : 'a ';
  return template.replace('{h}', phrase).replace('{is}', g.is).replace('{does}', g.does).replace('{a}', a).replace(/\s+/g, ' ').trim();
}

/**
 * Generates `count` keywords (every head first; then tiers in order, sampled within the
 * last tier that does not fit whole).
 *
 * English keywords come from patterns that fit the head's kind (headProfiles.ts) on the
 * head and on attribute phrases that fit it; German and French from their modifiers.
 * Volumes are consistent by construction: a keyword never draws more than VARIANT_CAP of
 * any shorter keyword it contains (heads included: "trail running shoes" < "running
 * shoes"); synonyms share volume, CPC, competition and trend; and all keywords of a head
 * share its market shares, so the order holds in every market too.
 */
export function generateKeywords(count: number, rng: Rng): GeneratedKeyword[] {
  const candidates: Candidate[] = [];
  const add = (c: Omit<Candidate, 'family' | 'hidden'> & { family?: string | null; hidden?: boolean }) =>
    candidates.push({ ...c, family: c.family ?? null, hidden: c.hidden ?? false });
  NICHES.forEach((niche, nicheIndex) => {
    const nicheId = nicheIndex + 1;
    for (const language of ['en', 'de', 'fr'] as const) {
      const languageScale = language === 'en' ? 1 : 0.12;
      for (const head of niche.heads[language]) {
        const volume = rng.logUniform(1e4, 1e6) * languageScale;
        add({ kw: head, language, niche: nicheId, head, kind: 'head', intent: 'commercial,informational', base: volume, tier: 0 });
        if (language !== 'en') {
          for (const modifier of MODIFIERS[language]) {
            if (conflicts(head, modifier.template)) continue;
            add({
              kw: modifier.template.replace('{h}', head),
              language,
              niche: nicheId,
              head,
              kind: modifier.kind,
              intent: modifier.intent,
              base: volume * modifier.share,
              tier: 1,
            });
          }
          continue;
        }
        const profile = headProfile(head);
        const patterns = EN_PATTERNS[profile.kind].filter((m) => m.needs === undefined || profile[m.needs] === true);
        // Patterns that do not read on this head are drawn and hidden (GeneratedKeyword.hidden).
        const reads = (template: string) => profile.patterns === undefined || profile.patterns.includes(template);
        const applyPatterns = (phrase: string, phraseVolume: number, tier: number, family: string, questions = true, hidden = false) => {
          for (const m of patterns) {
            if (conflicts(phrase, m.template, m.clashes) || (!questions && m.kind === 'question')) continue;
            add({
              hidden: hidden || !reads(m.template),
              kw: fill(m.template, phrase, head),
              language,
              niche: nicheId,
              head,
              kind: m.kind,
              intent: m.intent,
              base: phraseVolume * m.share,
              tier,
              family: m.family ? `${family}|${m.family}` : null,
            });
          }
        };
        applyPatterns(head, volume, 1, head);
        // The year's best of things one buys ("best vpn 2026"), never of a topic ("best learn python 2026").
        add({
          kw: `best ${head} ${YEAR}`,
          language,
          niche: nicheId,
          head,
          kind: 'modifier',
          intent: 'commercial',
          base: volume * 0.02,
          tier: 2,
          hidden: profile.kind === 'topic' || !reads('best {h}'),
        });
        if (profile.local) {
          for (const city of CITIES) {
            add({ kw: `${head} in ${city}`, language, niche: nicheId, head, kind: 'modifier', intent: 'transactional,local', base: volume * 0.004, tier: 3 });
            add({ kw: `best ${head} in ${city}`, language, niche: nicheId, head, kind: 'modifier', intent: 'commercial,local', base: volume * 0.001, tier: 5 });
          }
        }
        const usable = profile.attributes.filter((a) => !conflicts(head, a));
        usable.forEach((attribute, i) => {
          const phrase = `${attribute} ${head}`;
          const phraseVolume = volume * 0.04;
          const synonym = ATTRIBUTE_SYNONYMS[attribute];
          const family = synonym ? `${head}|${synonym.family}` : null;
          // No adjective goes before a verb phrase ("free learn python"): drawn, hidden.
          const hidden = profile.verb === true;
          add({ kw: phrase, language, niche: nicheId, head, kind: 'modifier', intent: 'commercial', base: phraseVolume, tier: 2, family, hidden });
          if (synonym)
            add({
              kw: fill(synonym.template, head, head),
              language,
              niche: nicheId,
              head,
              kind: 'modifier',
              intent: 'commercial',
              base: phraseVolume,
              tier: 2,
              family,
              hidden,
            });
          applyPatterns(phrase, phraseVolume, 3, phrase, true, hidden);
          // One order per pair ("lightweight waterproof", never also "waterproof lightweight").
          for (const second of usable.slice(i + 1)) {
            if (clashes(attribute, second)) continue;
            const longPhrase = `${attribute} ${second} ${head}`;
            add({ kw: longPhrase, language, niche: nicheId, head, kind: 'modifier', intent: 'commercial', base: phraseVolume * 0.05, tier: 4, hidden });
            // People ask about a thing with one attribute ("is a part time coding bootcamp worth
            // it"), not with two ("is a part time beginner coding bootcamp worth it").
            applyPatterns(longPhrase, phraseVolume * 0.05, 5, longPhrase, false, hidden);
          }
        });
      }
      if (language === 'en') {
        const brandable = niche.heads.en.filter((h) => ['product', 'software'].includes(headProfile(h).kind));
        for (const brand of niche.brands) {
          const brandVolume = rng.logUniform(1e3, 8e4);
          add({ kw: brand, language, niche: nicheId, head: brand, kind: 'brand', intent: 'navigational', base: brandVolume, tier: 0 });
          for (const [suffix, intent, share, tier, family] of BRAND_VARIANTS)
            add({
              kw: `${brand} ${suffix}`,
              language,
              niche: nicheId,
              head: brand,
              kind: 'brand',
              intent,
              base: brandVolume * share,
              tier,
              family: family ? `${brand}|${family}` : null,
            });
          for (const head of brandable) {
            const phrase = `${brand} ${head}`;
            add({ kw: phrase, language, niche: nicheId, head, kind: 'brand', intent: 'commercial,navigational', base: brandVolume * 0.08, tier: 2 });
            for (const suffix of ['review', 'price', 'sale']) {
              add({
                kw: `${phrase} ${suffix}`,
                language,
                niche: nicheId,
                head,
                kind: 'brand',
                intent: suffix === 'review' ? 'commercial' : 'transactional',
                base: brandVolume * 0.004,
                tier: 4,
              });
            }
            for (const attribute of headProfile(head).attributes.slice(0, 3)) {
              if (conflicts(`${brand} ${head}`, attribute)) continue;
              add({
                kw: `${brand} ${attribute} ${head}`,
                language,
                niche: nicheId,
                head,
                kind: 'brand',
                intent: 'commercial',
                base: brandVolume * 0.003,
                tier: 5,
              });
            }
          }
          for (const other of niche.brands) {
            if (other > brand) {
              add({
                kw: `${brand} vs ${other}`,
                language,
                niche: nicheId,
                head: brand,
                kind: 'versus',
                intent: 'commercial',
                base: brandVolume * 0.02,
                tier: 1,
              });
            }
          }
        }
        for (const [a, b] of VERSUS) {
          if (!niche.heads.en.includes(a) || !niche.heads.en.includes(b)) continue;
          add({ kw: `${a} vs ${b}`, language, niche: nicheId, head: a, kind: 'versus', intent: 'commercial', base: 400, tier: 1 });
        }
      }
    }
  });

  // Deduplicate per (kw, language): the first (lowest tier) wins; it is hidden only when every phrasing of it is.
  const seen = new Map<string, Candidate>();
  const unique = candidates.filter((c) => {
    const key = `${c.language}:${c.kw}`;
    const first = seen.get(key);
    if (first) {
      first.hidden &&= c.hidden;
      return false;
    }
    seen.set(key, c);
    return true;
  });
  const chosen: Candidate[] = [];
  for (let tier = 0; tier <= 5 && chosen.length < count; tier++) {
    const inTier = unique.filter((c) => c.tier === tier);
    if (chosen.length + inTier.length <= count) {
      chosen.push(...inTier);
    } else {
      // Fisher–Yates shuffle (Knuth, TAOCP vol. 2, Algorithm P), then take what fits.
      for (let i = inTier.length - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [inTier[i], inTier[j]] = [inTier[j], inTier[i]];
      }
      chosen.push(...inTier.slice(0, count - chosen.length));
    }
  }

  // Market shares per niche and language (a niche is popular in some countries more than
  // in others); the caps below take them into account, so that a variant below a shorter
  // keyword stays below it in every market too.
  type Market = { locationId: number; share: number };
  const nicheShares = new Map<string, Market[]>();
  const sharesOf = (language: WorldLanguage, niche: number) => {
    const key = `${language}:${niche}`;
    let markets = nicheShares.get(key);
    if (!markets) {
      const raw = MARKETS[language].map((m) => ({ locationId: m.locationId, share: m.share * rng.lognormal(1, 0.3) }));
      const total = raw.reduce((sum, m) => sum + m.share, 0);
      // Listed markets cover ~92 % of a language's searches; the rest is spread worldwide.
      markets = raw.map((m) => ({ locationId: m.locationId, share: Math.round((m.share / total) * 0.92 * 1e4) / 1e4 }));
      nicheShares.set(key, markets);
    }
    return markets;
  };
  // Draws, then consistency: shortest keywords first, each capped below every shorter
  // keyword it contains; synonyms then take their family's lowest volume and one draw of
  // CPC, competition and trend, and the caps run again for what contains them.
  const drawn = chosen.map((c) => {
    const niche = NICHES[c.niche - 1];
    const noise = c.tier === 0 ? 1 : rng.lognormal(1, 0.5);
    const price = HEAD_CPC[c.language][c.head] ?? niche.cpc;
    const sigma = c.kind === 'head' ? HEAD_CPC_SIGMA : VARIANT_CPC_SIGMA;
    const cpc = Math.round(price * intentCpcFactor(c.intent) * rng.lognormal(1, sigma) * 100) / 100;
    const [lo, hi] = intentPpcRange(c.intent);
    return {
      c,
      volume: Math.max(10, Math.round(c.base * noise)),
      cpc,
      ppc: Math.round(lo + (hi - lo) * rng.next()),
      trend: Math.round(niche.trend * rng.lognormal(1, 0.03) * 1e4) / 1e4,
      markets: sharesOf(c.language, c.niche),
    };
  });
  /** How far below a shorter keyword a variant must stay worldwide for the order to hold in each of its markets too. */
  const marketFactor = (variant: { markets: Market[] }, shorter: { markets: Market[] }): number => {
    let factor = 1;
    for (const m of variant.markets) {
      const other = shorter.markets.find((o) => o.locationId === m.locationId);
      if (other && m.share > 0) factor = Math.min(factor, other.share / m.share);
    }
    return factor;
  };
  const byKey = new Map(drawn.map((d) => [`${d.c.language}:${d.c.kw}`, d]));
  const order = [...drawn].sort((a, b) => words(a.c.kw).length - words(b.c.kw).length);
  const cap = () => {
    for (const d of order) {
      // A head inside another ("running shoes" in "trail running shoes") is the broader search by far.
      const factor = d.c.kind === 'head' ? HEAD_IN_HEAD_CAP : VARIANT_CAP;
      for (const phrase of containedPhrases(d.c.kw)) {
        const shorter = byKey.get(`${d.c.language}:${phrase}`);
        if (shorter) d.volume = Math.max(10, Math.min(d.volume, Math.floor(shorter.volume * factor * marketFactor(d, shorter))));
      }
    }
  };
  cap();
  const families = new Map<string, (typeof drawn)[number][]>();
  for (const d of drawn) {
    if (d.c.family === null) continue;
    const members = families.get(d.c.family);
    if (members) members.push(d);
    else families.set(d.c.family, [d]);
  }
  for (const members of families.values()) {
    const first = members[0];
    const volume = Math.min(...members.map((m) => m.volume));
    for (const m of members) Object.assign(m, { volume, cpc: first.cpc, ppc: first.ppc, trend: first.trend });
  }
  cap();

  const synonymsOf = (d: (typeof drawn)[number]) =>
    d.c.family === null
      ? []
      : families
          .get(d.c.family)!
          .filter((m) => m !== d && !m.c.hidden)
          .map((m) => m.c.kw);

  return drawn.map((d, index) => {
    const c = d.c;
    return {
      id: index + 1,
      kw: c.kw,
      languageId: LANGUAGE_IDS[c.language],
      nicheId: c.niche,
      head: c.head,
      kind: c.kind,
      intent: c.intent,
      volume: d.volume,
      trend: d.trend,
      noiseSeed: hash32(`${c.language}:${c.kw}`),
      cpc: d.cpc,
      ppc: d.ppc,
      markets: d.markets,
      synonyms: synonymsOf(d),
      hidden: c.hidden,
    };
  });
}
