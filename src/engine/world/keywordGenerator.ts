/**
 * Keywords of the sandbox web: heads, attribute phrases, modifiers, questions, brands
 * and "vs" comparisons per niche and language, with heavy-tailed volumes, lognormal CPC
 * tied to commercial intent, PPC competition and per-country market shares.
 */
import { LANGUAGE_IDS, MARKETS, MODIFIERS, NICHES, type WorldLanguage } from './vocabulary.js';
import { Rng, hash32 } from './random.js';

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
}

/**
 * CPC multiplier by the strongest intent: buyers' queries cost more (advertisers bid on
 * purchase intent), informational ones far less.
 */
function intentCpcFactor(intent: string): number {
  if (intent.includes('transactional')) return 1.6;
  if (intent.includes('commercial')) return 1.15;
  if (intent.includes('navigational')) return 0.5;
  return 0.22;
}

function intentPpcRange(intent: string): [number, number] {
  if (intent.includes('transactional')) return [55, 100];
  if (intent.includes('commercial')) return [35, 90];
  if (intent.includes('navigational')) return [10, 50];
  return [0, 30];
}

/** Generates `count` keywords (at least every head; then tiers in order, sampled within the last tier). */
export function generateKeywords(count: number, rng: Rng): GeneratedKeyword[] {
  const candidates: Candidate[] = [];
  const headVolume = new Map<string, number>();
  NICHES.forEach((niche, nicheIndex) => {
    const nicheId = nicheIndex + 1;
    for (const language of ['en', 'de', 'fr'] as const) {
      const languageScale = language === 'en' ? 1 : 0.12;
      for (const head of niche.heads[language]) {
        const volume = rng.logUniform(1e4, 1e6) * languageScale;
        headVolume.set(`${language}:${head}`, volume);
        candidates.push({ kw: head, language, niche: nicheId, head, kind: 'head', intent: 'commercial,informational', base: volume, tier: 0 });
        for (const modifier of MODIFIERS[language]) {
          candidates.push({
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
        if (language === 'en') {
          for (const attribute of niche.attributes) {
            const phrase = `${attribute} ${head}`;
            const phraseVolume = volume * 0.04;
            candidates.push({ kw: phrase, language, niche: nicheId, head, kind: 'modifier', intent: 'commercial', base: phraseVolume, tier: 2 });
            for (const modifier of MODIFIERS.en) {
              candidates.push({
                kw: modifier.template.replace('{h}', phrase),
                language,
                niche: nicheId,
                head,
                kind: modifier.kind,
                intent: modifier.intent,
                base: phraseVolume * modifier.share,
                tier: 3,
              });
            }
            for (const second of niche.attributes) {
              if (second === attribute) continue;
              const longPhrase = `${attribute} ${second} ${head}`;
              candidates.push({ kw: longPhrase, language, niche: nicheId, head, kind: 'modifier', intent: 'commercial', base: phraseVolume * 0.02, tier: 4 });
              for (const modifier of MODIFIERS.en.slice(0, 6)) {
                candidates.push({
                  kw: modifier.template.replace('{h}', longPhrase),
                  language,
                  niche: nicheId,
                  head,
                  kind: modifier.kind,
                  intent: modifier.intent,
                  base: phraseVolume * 0.02 * modifier.share,
                  tier: 5,
                });
              }
            }
          }
        }
      }
      if (language === 'en') {
        for (const brand of niche.brands) {
          const brandVolume = rng.logUniform(1e3, 8e4);
          candidates.push({ kw: brand, language, niche: nicheId, head: brand, kind: 'brand', intent: 'navigational', base: brandVolume, tier: 0 });
          candidates.push({
            kw: `${brand} review`,
            language,
            niche: nicheId,
            head: brand,
            kind: 'brand',
            intent: 'commercial',
            base: brandVolume * 0.05,
            tier: 1,
          });
          for (const head of niche.heads.en.slice(0, 4)) {
            candidates.push({
              kw: `${brand} ${head}`,
              language,
              niche: nicheId,
              head,
              kind: 'brand',
              intent: 'commercial,navigational',
              base: brandVolume * 0.08,
              tier: 1,
            });
          }
          for (const other of niche.brands) {
            if (other > brand) {
              candidates.push({
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
        const heads = niche.heads.en;
        for (let i = 0; i + 1 < heads.length; i += 2) {
          const volume = headVolume.get(`en:${heads[i]}`) ?? 1e4;
          candidates.push({
            kw: `${heads[i]} vs ${heads[i + 1]}`,
            language,
            niche: nicheId,
            head: heads[i],
            kind: 'versus',
            intent: 'commercial',
            base: volume * 0.002,
            tier: 2,
          });
        }
      }
    }
  });

  // Deduplicate per (kw, language): the first (lowest tier) wins.
  const seen = new Set<string>();
  const unique = candidates.filter((c) => {
    const key = `${c.language}:${c.kw}`;
    if (seen.has(key)) return false;
    seen.add(key);
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

  return chosen.map((c, index) => {
    const niche = NICHES[c.niche - 1];
    const noise = c.tier === 0 ? 1 : rng.lognormal(1, 0.7);
    const volume = Math.max(10, Math.round(c.base * noise));
    const cpc = Math.round(niche.cpc * intentCpcFactor(c.intent) * rng.lognormal(1, 0.55) * 100) / 100;
    const [lo, hi] = intentPpcRange(c.intent);
    const ppc = Math.round(lo + (hi - lo) * rng.next());
    const raw = MARKETS[c.language].map((m) => ({ locationId: m.locationId, share: m.share * rng.lognormal(1, 0.3) }));
    const total = raw.reduce((sum, m) => sum + m.share, 0);
    // Listed markets cover ~92 % of a language's searches; the rest is spread worldwide.
    const markets = raw.map((m) => ({ locationId: m.locationId, share: Math.round((m.share / total) * 0.92 * 1e4) / 1e4 }));
    return {
      id: index + 1,
      kw: c.kw,
      languageId: LANGUAGE_IDS[c.language],
      nicheId: c.niche,
      head: c.head,
      kind: c.kind,
      intent: c.intent,
      volume,
      trend: Math.round(niche.trend * rng.lognormal(1, 0.03) * 1e4) / 1e4,
      noiseSeed: hash32(`${c.language}:${c.kw}`),
      cpc,
      ppc,
      markets,
    };
  });
}
