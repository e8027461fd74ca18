/**
 * What a monitor finds in one AI answer: where the brand is mentioned, its position among the
 * brands the answer names, the sentiment around it, the cited URLs on its domain, and the other
 * brands named (the brands of the sites the answer cites).
 *
 * Mentions are word-bounded and case-, accent- and punctuation-insensitive: text and names are
 * cut into words of letters and digits after Unicode decomposition without marks, so
 * "Cafe-Noir" in an answer matches the brand "Café Noir", and "Openpedia's" matches
 * "Openpedia" but "Openpedian" does not. A name also matches its words written together
 * ("CocaCola" for "Coca-Cola"), up to three words. Link labels (`[label](url)`), URLs and the
 * spans a provider marks as citations are not prose and are skipped. Hand-written: a general
 * tokenizer (Intl.Segmenter) would give words without the original offsets we highlight.
 *
 * Sentiment: the AFINN-165 lexicon (the `sentiment` package) over the sentences that mention
 * the brand, the brand's own words left out.
 */
import Sentiment from 'sentiment';
import { getDomain, getDomainWithoutSuffix } from 'tldts';

export interface Citation {
  url: string;
  title: string;
  /** Host the citation points at (without `www.`); for Gemini the grounding chunk's title. Null when unknown. */
  domain: string | null;
}

/** An answer as bought: its text, its citations and the spans of the text that are citation marks or link labels. */
export interface AnswerBody {
  text: string;
  citations: Citation[];
  /** [start, end) spans of `text` that are not prose (a provider's citation marks). */
  masked?: [number, number][];
}

export interface Mention {
  start: number;
  end: number;
  text: string;
}

export type Sentiment3 = 'positive' | 'neutral' | 'negative';

export interface Analysis {
  mentions: Mention[];
  /** 1 + the other brands named before the brand's first mention; null when not mentioned. */
  position: number | null;
  sentiment: Sentiment3 | null;
  /** Distinct cited URLs on the domain or a subdomain (utm_* parameters and fragments left out). */
  domainUrls: string[];
  /** Every distinct cited URL (canonical form), in the answer's order. */
  citedUrls: string[];
  /** Other brands the answer names: those of the sites it cites, with their mentions. */
  brands: { name: string; domain: string; mentions: number }[];
}

export interface AnalysisTarget {
  brand: string;
  brandVariations: readonly string[];
  domain: string;
}

interface Token {
  word: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}]/u;
const MARKS = /\p{M}/gu;

/** A character folded for matching: decomposed, marks removed, lower case. */
function fold(ch: string): string {
  return ch.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** The spans of a text that are not prose: markdown link labels with their targets, bare URLs. */
export function nonProse(text: string, extra: readonly [number, number][] = []): [number, number][] {
  const spans: [number, number][] = [...extra];
  for (const m of text.matchAll(/\[[^\]\n]{0,500}\]\([^)\s]{1,2000}\)/g)) spans.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s)\]>"']+/gi)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/** The words of a text with their offsets, leaving out words inside the masked spans. */
export function words(text: string, masked: readonly [number, number][] = []): Token[] {
  const out: Token[] = [];
  let current = '';
  let start = -1;
  const inMask = (i: number) => masked.some(([a, b]) => i >= a && i < b);
  const flush = (end: number) => {
    if (current !== '') out.push({ word: current, start, end });
    current = '';
    start = -1;
  };
  let i = 0;
  for (const ch of text) {
    const f = fold(ch);
    if (!inMask(i) && f !== '' && [...f].every((c) => WORD.test(c))) {
      if (start < 0) start = i;
      current += f;
    } else flush(i);
    i += ch.length;
  }
  flush(i);
  return out;
}

/** Up to three text words written together or apart may stand for a name. */
const MAX_JOINED = 3;

/** Where any of the names occurs in the text's words, non-overlapping, in text order. */
export function findNames(text: string, tokens: readonly Token[], names: readonly string[]): Mention[] {
  const patterns = names
    .map((n) => words(n).map((t) => t.word))
    .filter((ws) => ws.length > 0)
    .map((ws) => ({ ws, joined: ws.join('') }))
    // Longer names first, so "Coca-Cola Zero" is one mention rather than "Coca-Cola" and a stray word.
    .sort((a, b) => b.ws.length - a.ws.length || b.joined.length - a.joined.length);
  const out: Mention[] = [];
  for (let i = 0; i < tokens.length;) {
    let span = 0;
    for (const p of patterns) {
      if (i + p.ws.length <= tokens.length && p.ws.every((w, k) => tokens[i + k].word === w)) {
        span = p.ws.length;
        break;
      }
      let joined = '';
      for (let j = 0; j < MAX_JOINED && i + j < tokens.length && joined.length < p.joined.length; j++) {
        joined += tokens[i + j].word;
        if (joined === p.joined) {
          span = j + 1;
          break;
        }
      }
      if (span > 0) break;
    }
    if (span === 0) {
      i++;
      continue;
    }
    const start = tokens[i].start;
    const end = tokens[i + span - 1].end;
    out.push({ start, end, text: text.slice(start, end) });
    i += span;
  }
  return out;
}

/** A URL for counting: utm_* parameters, the fragment and a trailing slash dropped, host in lower case. */
export function canonicalUrl(raw: string): string {
  try {
    const u = new URL(raw);
    for (const key of [...u.searchParams.keys()]) if (/^utm_/i.test(key)) u.searchParams.delete(key);
    u.hash = '';
    u.hostname = u.hostname.toLowerCase();
    return u.toString().replace(/\/(\?|$)/, '$1');
  } catch {
    return raw.trim();
  }
}

/** The host of a URL without `www.`, or null. */
export function hostOf(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
    return host.replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

/** Whether a host is the domain or one of its subdomains. */
export function onDomain(host: string | null, domain: string): boolean {
  if (!host) return false;
  const h = host.toLowerCase().replace(/^www\./, '');
  return h === domain || h.endsWith(`.${domain}`);
}

/** A readable brand name for a cited domain the research data does not name: its label, capitalised ("runnersworld.com" → "Runnersworld"). */
export function nameOfDomain(domain: string): string {
  const label = getDomainWithoutSuffix(domain) ?? domain.split('.')[0];
  return label.charAt(0).toUpperCase() + label.slice(1);
}

const sentimentScorer = new Sentiment();

/** The sentences around the mentions, scored together without the brand's own words. */
function sentimentOf(text: string, mentions: readonly Mention[], masked: readonly [number, number][]): Sentiment3 | null {
  if (mentions.length === 0) return null;
  const bounds: [number, number][] = [];
  for (const m of mentions) {
    let a = m.start;
    while (a > 0 && !/[.!?\n]/.test(text[a - 1])) a--;
    let b = m.end;
    while (b < text.length && !/[.!?\n]/.test(text[b])) b++;
    if (!bounds.some(([x, y]) => x === a && y === b)) bounds.push([a, b]);
  }
  let score = 0;
  for (const [a, b] of bounds) {
    let sentence = '';
    for (let i = a; i < b; i++) {
      const hidden = mentions.some((m) => i >= m.start && i < m.end) || masked.some(([x, y]) => i >= x && i < y);
      sentence += hidden ? ' ' : text[i];
    }
    score += sentimentScorer.analyze(sentence).score;
  }
  return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
}

/**
 * Analyses one answer for a monitor. `brandOf` names a cited domain's brand when the research
 * data knows it (the sandbox's sites); otherwise the domain's label stands for it.
 */
export function analyse(answer: AnswerBody, target: AnalysisTarget, brandOf: (domain: string) => string | null = () => null): Analysis {
  const masked = nonProse(answer.text, answer.masked ?? []);
  const tokens = words(answer.text, masked);
  const mentions = findNames(answer.text, tokens, [target.brand, ...target.brandVariations]);
  const domainUrls = new Set<string>();
  const others = new Map<string, string>();
  for (const c of answer.citations) {
    const host = c.domain ?? hostOf(c.url);
    if (onDomain(host, target.domain)) domainUrls.add(canonicalUrl(c.url));
    else if (host) {
      const root = getDomain(host) ?? host;
      if (!others.has(root)) others.set(root, brandOf(root) ?? nameOfDomain(root));
    }
  }
  const ownWords = new Set(findNames(target.brand, words(target.brand), [target.brand]).map((m) => m.text.toLowerCase()));
  const brands: Analysis['brands'] = [];
  let before = 0;
  const first = mentions[0]?.start ?? Infinity;
  for (const [domain, name] of others) {
    // A cited site named like the brand is the brand, not a competitor.
    if (ownWords.has(name.toLowerCase())) continue;
    const found = findNames(answer.text, tokens, [name]);
    if (found.length === 0) continue;
    brands.push({ name, domain, mentions: found.length });
    if (found[0].start < first) before++;
  }
  return {
    mentions,
    position: mentions.length > 0 ? before + 1 : null,
    sentiment: sentimentOf(answer.text, mentions, masked),
    domainUrls: [...domainUrls],
    citedUrls: [...new Set(answer.citations.map((c) => canonicalUrl(c.url)))],
    brands,
  };
}
