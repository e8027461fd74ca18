/**
 * What each English head term is, so that keyword patterns fit it: a product is bought
 * ("cheap tents", "is a treadmill worth it"), a service is compared and applied for
 * ("compare personal loans"), a place is booked, a topic is learnt ("meal prep for
 * beginners"). Grammar makes questions read as English ("how much do running shoes cost",
 * "how much does a tent cost", "is protein powder worth it"), and each head lists the
 * niche attributes that make sense on it ("burr coffee grinder", never "burr coffee beans").
 */
import { modifier, type Modifier } from './modifiers.js';

export type HeadKind = 'product' | 'software' | 'service' | 'place' | 'topic';
/** plural ("running shoes"), mass ("protein powder": no article) or countable singular ("tent": "a tent"). */
export type HeadGrammar = 'plural' | 'mass' | 'countable';

export interface HeadProfile {
  kind: HeadKind;
  grammar: HeadGrammar;
  /** Niche attributes that fit this head, in the order they are combined ("lightweight waterproof tent"). */
  attributes: readonly string[];
  /** A durable good (cleaned, bought used); consumables are neither. */
  durable?: boolean;
  /** Something people look for nearby (a shop, lessons, a garage). */
  local?: boolean;
  /** A topic people make or do ("how to make cold brew"). */
  make?: boolean;
  /**
   * A topic's patterns that read as English on it (templates of EN_PATTERNS.topic): "credit
   * score tips" but never "credit score ideas" or "easy credit score"; "learn python for
   * beginners" but never "best learn python". Other kinds take all their kind's patterns.
   */
  patterns?: readonly string[];
  /**
   * A verb phrase ("learn python"): no adjective goes before it ("free learn python"). Its
   * attributes' phrases are still drawn, and left out (keywordGenerator.ts: hidden).
   */
  verb?: boolean;
  /**
   * A head of public interest (taxes, public student aid, consumer credit, health guidance):
   * government sites answer it (search/headFit.ts); on any other head they are off intent.
   */
  publicInterest?: boolean;
}

const p = (grammar: HeadGrammar, attributes: readonly string[], extra: Partial<HeadProfile> = {}): HeadProfile => ({
  kind: 'product',
  grammar,
  attributes,
  durable: true,
  local: true,
  ...extra,
});
const consumable = (grammar: HeadGrammar, attributes: readonly string[], extra: Partial<HeadProfile> = {}): HeadProfile =>
  p(grammar, attributes, { durable: false, ...extra });
const software = (grammar: HeadGrammar, attributes: readonly string[], extra: Partial<HeadProfile> = {}): HeadProfile => ({
  kind: 'software',
  grammar,
  attributes,
  ...extra,
});
const service = (grammar: HeadGrammar, attributes: readonly string[], extra: Partial<HeadProfile> = {}): HeadProfile => ({
  kind: 'service',
  grammar,
  attributes,
  ...extra,
});
const place = (grammar: HeadGrammar, attributes: readonly string[]): HeadProfile => ({ kind: 'place', grammar, attributes });
const topic = (grammar: HeadGrammar, attributes: readonly string[], patterns: readonly string[], extra: Partial<HeadProfile> = {}): HeadProfile => ({
  kind: 'topic',
  grammar,
  attributes,
  patterns,
  ...extra,
});
/** Shorthands of the topic patterns ("{h} for beginners", …) for the allow-lists below. */
const T = {
  beginners: '{h} for beginners',
  easy: 'easy {h}',
  tips: '{h} tips',
  ideas: '{h} ideas',
  guide: '{h} guide',
  best: 'best {h}',
  make: 'how to make {h}',
  what: 'what {is} {a}{h}',
} as const;

export const EN_HEAD_PROFILES: Readonly<Record<string, HeadProfile>> = {
  // outdoor: waterproof, lightweight, ultralight, womens, mens, winter, 4 season, budget
  'hiking boots': p('plural', ['budget', 'lightweight', 'waterproof', 'winter', 'womens', 'mens']),
  tent: p('countable', ['budget', 'ultralight', 'lightweight', '4 season', 'winter']),
  'sleeping bag': p('countable', ['budget', 'ultralight', 'lightweight', 'winter', 'womens']),
  backpack: p('countable', ['budget', 'ultralight', 'lightweight', 'waterproof', 'womens', 'mens']),
  'camping stove': p('countable', ['budget', 'ultralight', 'lightweight']),
  'trekking poles': p('plural', ['budget', 'ultralight', 'lightweight']),
  'rain jacket': p('countable', ['budget', 'ultralight', 'lightweight', 'womens', 'mens']),
  headlamp: p('countable', ['budget', 'lightweight', 'waterproof']),
  'water filter': p('countable', ['budget', 'lightweight']),
  'camping chair': p('countable', ['budget', 'ultralight', 'lightweight']),
  hammock: p('countable', ['budget', 'ultralight', 'lightweight']),
  'trail running shoes': p('plural', ['budget', 'lightweight', 'waterproof', 'winter', 'womens', 'mens']),
  // fitness: adjustable, beginner, vegan, foldable, cheap, professional, womens, compact
  'running shoes': p('plural', ['cheap', 'beginner', 'professional', 'womens']),
  'protein powder': consumable('mass', ['cheap', 'vegan', 'beginner', 'womens']),
  'yoga mat': p('countable', ['cheap', 'beginner', 'foldable', 'professional', 'compact']),
  dumbbells: p('plural', ['cheap', 'adjustable', 'beginner', 'compact', 'womens']),
  treadmill: p('countable', ['cheap', 'foldable', 'compact', 'professional']),
  'resistance bands': p('plural', ['cheap', 'beginner', 'professional', 'womens']),
  'home gym': p('countable', ['cheap', 'foldable', 'compact', 'professional']),
  'workout plan': topic('countable', ['beginner', 'womens'], [T.beginners, T.easy, T.ideas, T.best]),
  'fitness tracker': p('countable', ['cheap', 'compact', 'womens']),
  kettlebell: p('countable', ['cheap', 'adjustable', 'beginner']),
  'exercise bike': p('countable', ['cheap', 'foldable', 'compact', 'professional']),
  'pre workout': consumable('mass', ['cheap', 'vegan', 'beginner', 'womens']),
  // coffee: automatic, manual, burr, organic, single origin, decaf, portable, dual boiler
  'espresso machine': p('countable', ['automatic', 'manual', 'portable', 'dual boiler']),
  'coffee grinder': p('countable', ['automatic', 'manual', 'burr', 'portable']),
  'french press': p('countable', ['portable']),
  'coffee beans': consumable('plural', ['organic', 'single origin', 'decaf']),
  'pour over coffee': topic('mass', [], [T.beginners, T.easy, T.tips, T.guide, T.best, T.make, T.what], { make: true }),
  'cold brew': topic('mass', ['organic', 'decaf'], [T.beginners, T.easy, T.tips, T.guide, T.best, T.make, T.what], { make: true }),
  'milk frother': p('countable', ['automatic', 'manual', 'portable']),
  'coffee maker': p('countable', ['automatic', 'manual', 'portable']),
  'moka pot': p('countable', ['manual', 'portable']),
  'latte art': topic('mass', [], [T.beginners, T.easy, T.tips, T.ideas, T.guide, T.make, T.what], { make: true }),
  // finance: low interest, no fee, online, student, high yield, fixed rate, small business, instant
  'credit card': service('countable', ['no fee', 'low interest', 'student', 'small business', 'instant']),
  'savings account': service('countable', ['high yield', 'no fee', 'online', 'student']),
  'personal loan': service('countable', ['low interest', 'fixed rate', 'online', 'instant', 'small business']),
  mortgage: service('countable', ['low interest', 'fixed rate', 'online'], { publicInterest: true }),
  'index funds': service('plural', ['no fee', 'online'], {
    patterns: ['best {h}', 'compare {h}', '{h} comparison', 'what {is} {a}{h}', 'how {does} {a}{h} work', '{is} {a}{h} worth it'],
  }),
  'budget app': software('countable', ['no fee', 'online', 'student', 'small business']),
  'stock broker': service('countable', ['no fee', 'online']),
  'retirement plan': service('countable', ['online', 'small business'], { publicInterest: true }),
  'credit score': topic('countable', [], [T.tips, T.guide, T.what], { publicInterest: true }),
  'car insurance': service('mass', ['online', 'student', 'instant']),
  'life insurance': service('mass', ['online', 'instant']),
  'tax software': software('mass', ['online', 'small business'], { publicInterest: true }),
  // travel: last minute, family, luxury, budget, weekend, europe, solo, summer
  // Plural services whose generic patterns do not read ("what are cheap flights", "cheap flights requirements").
  'cheap flights': service('plural', ['last minute', 'weekend', 'europe'], { patterns: ['best {h}', 'compare {h}', '{h} comparison', 'how to get {h}'] }),
  'hotels in paris': place('plural', ['budget', 'luxury', 'family']),
  'travel insurance': service('mass', ['budget', 'family', 'europe', 'solo']),
  'all inclusive resorts': place('plural', ['budget', 'luxury', 'family', 'europe']),
  'road trip': topic('countable', ['family', 'weekend', 'europe', 'solo', 'summer'], [T.tips, T.ideas, T.best]),
  'packing list': topic('countable', ['family', 'weekend', 'europe', 'summer'], [T.tips, T.ideas]),
  'carry on luggage': p('mass', ['budget', 'luxury']),
  'city break': place('countable', ['budget', 'luxury', 'last minute', 'weekend', 'europe']),
  'beach holidays': place('plural', ['budget', 'luxury', 'last minute', 'family', 'europe', 'summer']),
  'travel adapter': p('countable', ['budget', 'europe']),
  // gardening: cordless, electric, organic, small, indoor, heavy duty, wooden, self propelled
  'raised garden bed': p('countable', ['small', 'wooden']),
  'lawn mower': p('countable', ['cordless', 'electric', 'small', 'self propelled']),
  'tomato plants': consumable('plural', ['organic', 'indoor']),
  'compost bin': p('countable', ['small', 'indoor', 'wooden']),
  'garden hose': p('countable', ['heavy duty']),
  'pruning shears': p('plural', ['heavy duty', 'electric']),
  'grow lights': p('plural', ['small', 'indoor']),
  fertilizer: consumable('mass', ['organic', 'indoor']),
  greenhouse: p('countable', ['small', 'indoor', 'wooden']),
  'hedge trimmer': p('countable', ['cordless', 'electric', 'heavy duty']),
  // pets: grain free, large breed, orthopedic, natural, senior, small dog, clumping, indestructible
  'dog food': consumable('mass', ['natural', 'grain free', 'large breed', 'senior', 'small dog']),
  'cat litter': consumable('mass', ['natural', 'clumping']),
  'dog bed': p('countable', ['orthopedic', 'indestructible', 'large breed', 'senior', 'small dog']),
  'puppy training': topic('mass', ['small dog', 'large breed'], [T.tips, T.guide]),
  'cat tree': p('countable', ['natural']),
  'dog harness': p('countable', ['large breed', 'small dog']),
  aquarium: p('countable', []),
  'pet insurance': service('mass', ['senior']),
  'dog toys': p('plural', ['natural', 'indestructible', 'large breed', 'small dog']),
  'bird cage': p('countable', []),
  // tech: 4k, wireless, noise cancelling, budget, rgb, portable, usb c, 144hz
  'gaming laptop': p('countable', ['budget', '4k', '144hz', 'rgb']),
  'wireless earbuds': p('plural', ['budget', 'noise cancelling']),
  'mechanical keyboard': p('countable', ['budget', 'wireless', 'rgb']),
  smartphone: p('countable', ['budget']),
  monitor: p('countable', ['budget', '4k', 'portable', 'usb c', '144hz']),
  'external hard drive': p('countable', ['budget', 'portable', 'usb c']),
  'wifi router': p('countable', ['budget', 'portable']),
  smartwatch: p('countable', ['budget']),
  'graphics card': p('countable', ['budget']),
  webcam: p('countable', ['budget', '4k', 'wireless', 'usb c']),
  tablet: p('countable', ['budget', 'portable']),
  vpn: software('countable', ['budget']),
  // cooking: easy, healthy, quick, vegetarian, keto, non stick, large, gluten free
  'air fryer': p('countable', ['large', 'non stick']),
  'chicken recipes': topic('plural', ['easy', 'quick', 'healthy', 'keto'], [T.beginners, T.easy, T.best]),
  'sourdough bread': topic('mass', ['easy', 'gluten free'], [T.beginners, T.easy, T.tips, T.guide, T.best, T.make, T.what], { make: true }),
  'cast iron skillet': p('countable', ['large']),
  'slow cooker': p('countable', ['large']),
  'meal prep': topic('mass', ['easy', 'quick', 'healthy', 'vegetarian', 'keto'], [T.beginners, T.easy, T.tips, T.ideas, T.guide, T.what]),
  'chef knife': p('countable', []),
  'banana bread': topic('mass', ['easy', 'healthy', 'vegetarian', 'gluten free'], [T.easy, T.tips, T.best, T.make], { make: true }),
  'pasta recipes': topic('plural', ['easy', 'quick', 'healthy', 'vegetarian', 'gluten free'], [T.easy, T.best]),
  'stand mixer': p('countable', ['large']),
  // home: memory foam, quiet, ergonomic, king size, smart, cordless, hypoallergenic, cheap
  'robot vacuum': p('countable', ['cheap', 'quiet', 'cordless']),
  mattress: p('countable', ['cheap', 'memory foam', 'king size', 'hypoallergenic']),
  'air purifier': p('countable', ['cheap', 'quiet', 'smart']),
  'standing desk': p('countable', ['cheap', 'ergonomic', 'smart']),
  'office chair': p('countable', ['cheap', 'ergonomic']),
  'sofa bed': p('countable', ['cheap', 'memory foam', 'king size']),
  'smart thermostat': p('countable', ['cheap']),
  dehumidifier: p('countable', ['cheap', 'quiet', 'smart']),
  'blackout curtains': p('plural', ['cheap']),
  'bed sheets': p('plural', ['cheap', 'king size', 'hypoallergenic']),
  // education: free, accredited, online, part time, certificate, beginner, advanced, affordable
  'online courses': service('plural', ['free', 'accredited', 'certificate', 'beginner', 'advanced', 'affordable']),
  // A verb phrase: no adjective goes before it ("free learn python", "best learn python").
  'learn python': topic('mass', ['free'], [T.beginners], { verb: true }),
  'spanish lessons': service('plural', ['free', 'online', 'beginner', 'advanced', 'affordable'], { local: true }),
  'mba programs': service('plural', ['online', 'accredited', 'part time', 'affordable']),
  scholarships: service('plural', [], { publicInterest: true, patterns: ['best {h}', '{h} requirements', 'how to get {h}'] }),
  'sat prep': service('mass', ['free', 'online', 'affordable'], { local: true }),
  'coding bootcamp': service('countable', ['free', 'online', 'part time', 'beginner', 'affordable'], { local: true }),
  'study tips': topic('plural', [], [T.easy, T.best]),
  'student loans': service('plural', [], {
    publicInterest: true,
    patterns: ['best {h}', 'compare {h}', '{h} comparison', '{h} requirements', 'how {does} {a}{h} work'],
  }),
  'online degree': service('countable', ['accredited', 'part time', 'affordable']),
  // automotive: all season, cheap, best rated, portable, winter, hybrid, suv, fast
  'electric cars': p('plural', ['cheap', 'suv'], { local: true, publicInterest: true }),
  'car tires': p('plural', ['cheap', 'all season', 'winter', 'suv']),
  'dash cam': p('countable', ['cheap']),
  'car battery': p('countable', ['cheap']),
  'used cars': p('plural', ['cheap', 'hybrid', 'suv']),
  'car wax': consumable('mass', []),
  'jump starter': p('countable', ['cheap', 'portable']),
  'oil change': service('countable', ['cheap', 'fast'], { local: true }),
  'car seat covers': p('plural', ['cheap']),
  'ev charger': p('countable', ['portable', 'fast']),
  // beauty: sensitive skin, oily skin, natural, spf 50, anti aging, travel size, fragrance free, professional
  moisturizer: consumable('countable', ['natural', 'fragrance free', 'anti aging', 'oily skin', 'sensitive skin']),
  sunscreen: consumable('mass', ['natural', 'fragrance free', 'spf 50', 'oily skin', 'sensitive skin'], { publicInterest: true }),
  'hair dryer': p('countable', ['professional', 'travel size']),
  'vitamin c serum': consumable('countable', ['natural', 'anti aging', 'oily skin', 'sensitive skin']),
  'electric toothbrush': p('countable', ['travel size']),
  'retinol cream': consumable('mass', ['natural', 'fragrance free', 'anti aging', 'sensitive skin']),
  'dry shampoo': consumable('mass', ['natural', 'travel size']),
  'face wash': consumable('mass', ['natural', 'fragrance free', 'oily skin', 'sensitive skin']),
  'hair straightener': p('countable', ['professional', 'travel size']),
  perfume: consumable('mass', ['natural', 'travel size']),
};

/** The profile of an English head (a head missing here is a countable product with no attributes). */
export function headProfile(head: string): HeadProfile {
  return EN_HEAD_PROFILES[head] ?? p('countable', []);
}

/** Pieces of English that depend on the head's grammar. */
export function grammarOf(head: string, grammar: HeadGrammar): { is: string; does: string; a: string } {
  if (grammar === 'plural') return { is: 'are', does: 'do', a: '' };
  if (grammar === 'mass') return { is: 'is', does: 'does', a: '' };
  return { is: 'is', does: 'does', a: /^[aeio]/.test(head) ? 'an ' : 'a ' };
}

/**
 * An English keyword pattern: `{h}` is the (attributed) head, `{is}`, `{does}` and `{a}`
 * follow its grammar. `family` names synonyms of one intent ("{h} review" and "{h}
 * reviews"; "beginner {h}" and "{h} for beginners"): they share volume, CPC and
 * competition. `clashes`: words that make the pattern contradictory on a phrase that
 * already has them ("cheap luxury …", "cheap cheap …").
 */
export interface EnPattern extends Modifier {
  family?: string;
  clashes?: readonly string[];
  /** Only on durable goods / local heads / topics one makes. */
  needs?: 'durable' | 'local' | 'make';
}

/** An English pattern: a modifier with its family, clashes and needs. */
const pattern = (template: string, intent: string, share: number, extra: Omit<EnPattern, keyof Modifier> = {}): EnPattern =>
  modifier(template, intent, share, extra);

const PRICE_WORDS = ['cheap', 'budget', 'luxury', 'affordable', 'free', 'professional', 'best rated'];

export const EN_PATTERNS: Readonly<Record<HeadKind, readonly EnPattern[]>> = {
  product: [
    pattern('best {h}', 'commercial', 0.12, { clashes: ['best rated'] }),
    pattern('cheap {h}', 'transactional', 0.05, { clashes: PRICE_WORDS }),
    pattern('{h} review', 'commercial', 0.03, { family: 'review' }),
    pattern('{h} reviews', 'commercial', 0.03, { family: 'review' }),
    pattern('{h} near me', 'transactional,local', 0.03, { needs: 'local' }),
    pattern('buy {h}', 'transactional', 0.02),
    pattern('{h} sale', 'transactional', 0.015),
    pattern('{h} deals', 'transactional', 0.012),
    pattern('{h} price', 'transactional', 0.012),
    pattern('used {h}', 'transactional', 0.006, { needs: 'durable' }),
    pattern('top rated {h}', 'commercial', 0.006, { clashes: ['best rated'] }),
    pattern('how to choose {a}{h}', 'informational', 0.008),
    pattern('how to clean {a}{h}', 'informational', 0.006, { needs: 'durable' }),
    pattern('what {is} the best {h}', 'commercial,question', 0.008, { clashes: ['best rated'] }),
    pattern('how much {does} {a}{h} cost', 'informational,question,commercial', 0.006),
    pattern('{is} {a}{h} worth it', 'informational,question,commercial', 0.004),
    pattern('where to buy {a}{h}', 'transactional,question', 0.004),
    pattern('how to use {a}{h}', 'informational,question', 0.004, { needs: 'durable' }),
  ],
  software: [
    pattern('best {h}', 'commercial', 0.15),
    pattern('free {h}', 'transactional', 0.08, { clashes: PRICE_WORDS }),
    pattern('{h} review', 'commercial', 0.03, { family: 'review' }),
    pattern('{h} reviews', 'commercial', 0.03, { family: 'review' }),
    pattern('{h} pricing', 'transactional', 0.015),
    pattern('{h} comparison', 'commercial', 0.01, { family: 'compare' }),
    pattern('compare {h}', 'commercial', 0.01, { family: 'compare' }),
    pattern('what {is} the best {h}', 'commercial,question', 0.008),
    pattern('how does {a}{h} work', 'informational,question', 0.006),
    pattern('{is} {a}{h} worth it', 'informational,question,commercial', 0.004),
  ],
  service: [
    pattern('best {h}', 'commercial', 0.12),
    pattern('compare {h}', 'commercial', 0.02, { family: 'compare' }),
    pattern('{h} comparison', 'commercial', 0.02, { family: 'compare' }),
    pattern('{h} reviews', 'commercial', 0.015),
    pattern('{h} cost', 'transactional', 0.015),
    pattern('cheapest {h}', 'transactional', 0.012, { clashes: PRICE_WORDS }),
    pattern('{h} near me', 'transactional,local', 0.03, { needs: 'local' }),
    pattern('{h} requirements', 'informational', 0.006),
    pattern('how to get {a}{h}', 'informational', 0.008),
    pattern('what {is} {a}{h}', 'informational,question', 0.01),
    pattern('how {does} {a}{h} work', 'informational,question', 0.006),
    pattern('how much {does} {a}{h} cost', 'informational,question,commercial', 0.005),
    pattern('{is} {a}{h} worth it', 'informational,question,commercial', 0.004),
  ],
  place: [
    pattern('best {h}', 'commercial', 0.12),
    pattern('cheap {h}', 'transactional', 0.05, { clashes: PRICE_WORDS }),
    pattern('{h} deals', 'transactional', 0.03),
    pattern('{h} packages', 'transactional', 0.012),
    pattern('{h} reviews', 'commercial', 0.01),
    pattern('where to stay for {a}{h}', 'informational,question', 0.004),
    pattern('when is the best time for {a}{h}', 'informational,question', 0.003),
  ],
  topic: [
    pattern('{h} for beginners', 'informational', 0.03, { family: 'beginner', clashes: ['beginner', 'advanced'] }),
    pattern('easy {h}', 'informational', 0.03, { clashes: ['easy', 'advanced'] }),
    pattern('{h} tips', 'informational', 0.02),
    pattern('{h} ideas', 'informational', 0.015),
    pattern('{h} guide', 'informational', 0.01),
    pattern('best {h}', 'commercial', 0.05),
    pattern('how to make {h}', 'informational,question', 0.04, { needs: 'make' }),
    pattern('what {is} {a}{h}', 'informational,question', 0.008),
  ],
};

/**
 * Attributes with a synonym pattern: "beginner yoga mat" and "yoga mat for beginners" are
 * one search intent (shared volume, CPC, competition).
 */
export const ATTRIBUTE_SYNONYMS: Readonly<Record<string, { template: string; family: string }>> = {
  beginner: { template: '{h} for beginners', family: 'beginner' },
  womens: { template: '{h} for women', family: 'womens' },
  mens: { template: '{h} for men', family: 'mens' },
  family: { template: '{h} for families', family: 'family' },
  student: { template: '{h} for students', family: 'student' },
  'small business': { template: '{h} for small business', family: 'small business' },
  senior: { template: '{h} for seniors', family: 'senior' },
};

/** A rewrite of one spelling of an intent into its family's first: "{h} for beginners" → "beginner {h}". */
interface IntentRewrite {
  pattern: RegExp;
  canonical: string;
}

/** What a template matches ("{h} for beginners" → /^(.+) for beginners$/). */
const templatePattern = (template: string): RegExp => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace('{h}', '(.+)')}$`);

/**
 * Every synonym family's spellings, each rewritten to the family's first: the attribute
 * phrase for an attribute synonym ("yoga mat for beginners" → "beginner yoga mat"), else the
 * first pattern of the family ("compare vpn" → "vpn comparison"). Patterns with `{a}`,
 * `{is}` or `{does}` carry no family.
 */
const INTENT_REWRITES: readonly IntentRewrite[] = (() => {
  const canonical = new Map<string, string>();
  const rewrites: IntentRewrite[] = [];
  for (const [attribute, synonym] of Object.entries(ATTRIBUTE_SYNONYMS)) canonical.set(synonym.family, `${attribute} {h}`);
  const spellings = [
    ...Object.values(ATTRIBUTE_SYNONYMS).map((s) => ({ template: s.template, family: s.family })),
    ...Object.values(EN_PATTERNS)
      .flat()
      .filter((m): m is EnPattern & { family: string } => m.family !== undefined),
  ];
  for (const { template, family } of spellings) {
    const first = canonical.get(family);
    if (first === undefined) canonical.set(family, template);
    else if (first !== template && !rewrites.some((r) => r.pattern.source === templatePattern(template).source))
      rewrites.push({ pattern: templatePattern(template), canonical: first });
  }
  return rewrites;
})();

/**
 * One spelling per search intent: the members of a synonym family (generated together,
 * sharing volume, CPC and competition) map to one text, which search ranks as one intent
 * ("hiking boots for men" and "mens hiking boots" show the same pages and so get close
 * difficulty). Any other keyword is its own form.
 */
export function intentForm(kw: string): string {
  for (const r of INTENT_REWRITES) {
    const m = r.pattern.exec(kw);
    if (m) return r.canonical.replace('{h}', m[1]);
  }
  return kw;
}

/** Attributes that contradict each other on one phrase. */
export const CLASHING_ATTRIBUTES: readonly (readonly string[])[] = [
  ['womens', 'mens'],
  // Who a thing is for: one buyer at a time ("student small business credit card" is no one).
  ['student', 'small business', 'family', 'senior'],
  ['cheap', 'budget', 'luxury', 'professional', 'affordable', 'free'],
  ['beginner', 'advanced', 'professional'],
  ['automatic', 'manual'],
  ['small', 'large', 'heavy duty', 'king size'],
  ['small dog', 'large breed'],
  ['lightweight', 'ultralight'],
  ['oily skin', 'sensitive skin'],
  ['summer', 'winter', '4 season', 'all season'],
  ['cordless', 'electric'],
];

/** Whether two attributes (or an attribute and a pattern's words) contradict or repeat each other. */
export function clashes(a: string, b: string): boolean {
  if (a === b) return true;
  return CLASHING_ATTRIBUTES.some((group) => group.includes(a) && group.includes(b));
}
