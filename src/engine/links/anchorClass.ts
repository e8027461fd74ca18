/**
 * Classes of anchor texts toward a target site, as a backlink profile shows them:
 *
 * - `empty`: no text (an image link without alt text, say);
 * - `brand.url`: the target's own domain or home page as the text (`example.com`,
 *   `https://www.example.com/`);
 * - `naked.url`: any other URL as the text (a deeper URL of the target, another site's);
 * - `brand.domain`: words naming the brand, i.e. tokens that run together spell the
 *   domain's label (`Example` or `Ex Ample` for example.com), possibly among other words;
 * - `other.stop`: only stop words and generic anchors (`click here`, `read more`);
 * - `other.normal`: anything else (keywords, descriptive text).
 *
 * Each token gets the class it belongs to (weight 1) and the anchor's `score` is the share
 * of its tokens in each class, so a partly branded anchor shows how much of it is brand.
 */
import { parse as parseDomain } from 'tldts';

export type AnchorClass = 'brand.domain' | 'brand.url' | 'naked.url' | 'other' | 'other.normal' | 'other.stop' | 'empty';
export type TokenClass = 'brand.domain' | 'other.normal' | 'other.stop';

export interface AnchorToken {
  token: string;
  'brand.domain'?: number;
  'other.normal'?: number;
  'other.stop'?: number;
}

export interface AnchorClassification {
  class: AnchorClass;
  tokens: AnchorToken[];
  score: Record<TokenClass, number>;
}

/** English function words and the generic anchors link builders use. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by for from has have here how i in is it its me more my of on or our site that the their there this to us was we ' +
    'what when where which who why will with you your click read learn visit website web page link links source info information go see view ' +
    'details continue article post'
  ).split(' '),
);

const URL_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:[/?#]\S*)?$/i;

function hostOf(text: string): string | null {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Classifies an anchor text of a link to `rootDomain` (e.g. `example.com`). */
export function classifyAnchor(text: string, rootDomain: string): AnchorClassification {
  const trimmed = text.trim();
  const none: Record<TokenClass, number> = { 'brand.domain': 0, 'other.normal': 0, 'other.stop': 0 };
  if (trimmed === '') return { class: 'empty', tokens: [], score: none };
  if (!/\s/.test(trimmed) && URL_LIKE.test(trimmed)) {
    const host = hostOf(trimmed);
    const rest = trimmed.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^/?#]+/, '');
    const bare = rest === '' || rest === '/';
    const own = host !== null && host.replace(/^www\./, '') === rootDomain.toLowerCase();
    return { class: own && bare ? 'brand.url' : 'naked.url', tokens: [], score: none };
  }
  const words = trimmed.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return { class: 'other.stop', tokens: [], score: { ...none, 'other.stop': 1 } };
  const label = (parseDomain(rootDomain).domainWithoutSuffix ?? rootDomain).toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const classes: TokenClass[] = words.map((w) => (STOP_WORDS.has(w) ? 'other.stop' : 'other.normal'));
  // Runs of consecutive tokens that spell the brand label together.
  for (let i = 0; i < words.length && label.length > 0; i++) {
    let spelled = '';
    for (let j = i; j < words.length && spelled.length < label.length; j++) {
      spelled += words[j];
      if (spelled === label) {
        for (let k = i; k <= j; k++) classes[k] = 'brand.domain';
        break;
      }
      if (!label.startsWith(spelled)) break;
    }
  }
  const score = { ...none };
  for (const c of classes) score[c] += 1 / words.length;
  for (const c of Object.keys(score) as TokenClass[]) score[c] = round(score[c]);
  const tokens = words.map((token, i) => ({ token, [classes[i]]: 1 }));
  const anchorClass: AnchorClass = classes.includes('brand.domain') ? 'brand.domain' : classes.every((c) => c === 'other.stop') ? 'other.stop' : 'other.normal';
  return { class: anchorClass, tokens, score };
}
