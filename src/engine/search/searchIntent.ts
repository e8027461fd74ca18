/**
 * Search intent of a keyword from its wording.
 *
 * The four classic classes follow Broder, "A taxonomy of web search" (SIGIR Forum 36(2),
 * 2002: navigational, informational, transactional), with commercial investigation split
 * from transactional and local added, as SEO tools label keywords today. Cue words are
 * the usual modifiers of each class (Jansen, Booth & Spink, "Determining the
 * informational, navigational, and transactional intent of Web queries", IP&M 44(3),
 * 2008, Table 2 lists the same kind of lexical cues). A keyword may carry several labels.
 */
import { tokenize } from './text.js';

export type IntentLabel = 'informational' | 'navigational' | 'commercial' | 'transactional' | 'local';

/** Finer signals the SERP engine uses to pick features and content. */
export interface IntentSignals {
  labels: IntentLabel[];
  question: boolean;
  howTo: boolean;
  local: boolean;
  news: boolean;
  commercial: boolean;
  transactional: boolean;
  navigational: boolean;
  /** A brand or named entity appears in the keyword. */
  entity: boolean;
}

const QUESTION_WORDS = new Set([
  'how',
  'what',
  'why',
  'when',
  'where',
  'who',
  'which',
  'can',
  'does',
  'do',
  'is',
  'are',
  'should',
  'will',
  'wie',
  'was',
  'warum',
  'wann',
  'wo',
  'comment',
  'pourquoi',
  'quand',
  'où',
  'qué',
  'cómo',
  'por',
  'cuándo',
  'dónde',
]);
const COMMERCIAL = new Set([
  'best',
  'top',
  'review',
  'reviews',
  'vs',
  'versus',
  'compare',
  'comparison',
  'alternative',
  'alternatives',
  'rated',
  'ranking',
  'beste',
  'test',
  'meilleur',
  'mejor',
  'mejores',
]);
const TRANSACTIONAL = new Set([
  'buy',
  'price',
  'prices',
  'cheap',
  'deal',
  'deals',
  'discount',
  'coupon',
  'order',
  'sale',
  'shop',
  'cost',
  'rent',
  'hire',
  'booking',
  'book',
  'free',
  'download',
  'kaufen',
  'günstig',
  'preis',
  'acheter',
  'prix',
  'comprar',
  'precio',
]);
const NAVIGATIONAL = new Set(['login', 'signin', 'website', 'official', 'app', 'account', 'contact', 'com']);
const LOCAL = new Set(['near', 'nearby', 'open', 'local', 'closest', 'hours']);
const NEWS = new Set(['news', 'today', 'latest', 'update', 'updates', 'live', 'announced', 'nachrichten', 'actualités', 'noticias']);
const HOW_TO = ['how to', 'how do', 'tutorial', 'guide', 'diy', 'step by step', 'for beginners', 'anleitung', 'tutoriel'];

export interface IntentContext {
  /** Whether a token names a brand or entity the engine knows; navigational intent needs one. */
  isEntity?: (token: string) => boolean;
  /**
   * The keyword's cost per click, when known: advertisers bid on commercial queries, so a
   * cue-less head term with a high CPC ("running shoes") reads as commercial.
   */
  cpc?: number;
  /**
   * Intent hints stored with the keyword by the generator or importer (informational,
   * commercial, transactional, navigational, local, question); they add to the cues.
   */
  hints?: readonly string[];
}

/** CPC (USD) above which a cue-less keyword is taken as commercial. */
const COMMERCIAL_CPC = 1.5;

/** Intent signals of a keyword. */
export function intentSignals(keyword: string, context: IntentContext = {}): IntentSignals {
  const isEntity = context.isEntity ?? (() => false);
  const hint = new Set(context.hints ?? []);
  const tokens = tokenize(keyword);
  const text = ` ${tokens.join(' ')} `;
  const has = (set: ReadonlySet<string>) => tokens.some((t) => set.has(t));
  const question = (tokens.length > 1 && QUESTION_WORDS.has(tokens[0])) || hint.has('question');
  const howTo = HOW_TO.some((cue) => text.includes(` ${cue} `));
  const local = text.includes(' near me ') || has(LOCAL) || hint.has('local');
  const news = has(NEWS) || tokens.some((t) => /^20\d\d$/.test(t));
  const commercial = has(COMMERCIAL) || hint.has('commercial') || (!question && !howTo && (context.cpc ?? 0) >= COMMERCIAL_CPC);
  const transactional = has(TRANSACTIONAL) || hint.has('transactional');
  const entity = tokens.some(isEntity);
  const navigational = has(NAVIGATIONAL) || (entity && tokens.length <= 2) || hint.has('navigational');
  const labels: IntentLabel[] = [];
  if (question || howTo || news || hint.has('informational') || (!commercial && !transactional && !navigational && !local)) {
    labels.push('informational');
  }
  if (navigational) labels.push('navigational');
  if (commercial) labels.push('commercial');
  if (transactional) labels.push('transactional');
  if (local) labels.push('local');
  return { labels, question, howTo, local, news, commercial, transactional, navigational, entity };
}
