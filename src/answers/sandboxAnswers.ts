/**
 * The sandbox models' answers: composed from the sandbox web's pages that rank for the prompt
 * (the prompt's own SERP on that day, in the monitor's location and language), citing them and
 * naming their sites' brands. Deterministic: the same prompt, model, location and day give the
 * same answer to every account, and a later day follows the sandbox's rankings of that day.
 *
 * The assistant reads the first three sites (so the site ranking first for the prompt is always
 * cited by one sandbox model), the answer engine five with numbered citations, the overview
 * the second to fourth. Each site is named with a remark whose tone a hash of (prompt, model,
 * day, site) picks: mostly favourable, some neutral, one in ten critical, so sentiment figures
 * have something to count.
 */
import type { Serp, SerpItem } from '../engine/search/serpTypes.js';
import { contentTokens } from '../engine/search/text.js';
import { hash32 } from '../engine/world/random.js';
import type { AnswerBody, Citation } from './analysis.js';

/** What the sandbox models read: the sandbox's SERPs, and the brand of a sandbox site. */
export interface SandboxWeb {
  serp(query: { kw: string; locationId: number; languageId: number; date: string }): Serp;
  /** The brand name of a root domain of the sandbox web, or null. */
  brandOf(domain: string): string | null;
  /** A page to cite when nothing ranks for a prompt or its words. */
  fallbackPage(): { url: string; title: string; domain: string };
}

export interface SandboxQuestion {
  prompt: string;
  locationId: number;
  languageId: number;
  day: string;
}

interface Source {
  url: string;
  title: string;
  domain: string;
  brand: string;
}

const FAVOURABLE = [
  'is a trusted source here, with clear and well-reviewed advice',
  'is widely recommended for this, and its guide is excellent',
  'stands out: readers praise its practical, reliable coverage',
  'is a popular choice and explains it well',
];
const NEUTRAL = ['covers the topic as well', 'also has a page on this', 'lists the main options'];
const CRITICAL = ['is criticised by some readers for thin, outdated advice', 'has a weak, confusing page on this'];

function remark(seed: string): string {
  const h = hash32(seed);
  const tone = h % 10;
  const pick = (list: readonly string[]) => list[(h >>> 8) % list.length];
  return tone < 6 ? pick(FAVOURABLE) : tone < 9 ? pick(NEUTRAL) : pick(CRITICAL);
}

/** The organic results of the prompt's SERP, one per site, falling back to its words and then to one page. */
function sources(web: SandboxWeb, q: SandboxQuestion): Source[] {
  const organic = (kw: string) =>
    web
      .serp({ kw, locationId: q.locationId, languageId: q.languageId, date: q.day })
      .items.filter((i): i is SerpItem & { url: string; domain: string } => i.type === 'ORGANIC' && i.url !== null && i.domain !== null);
  let items = organic(q.prompt);
  if (items.length === 0) {
    for (const word of [...contentTokens(q.prompt)].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))) {
      items = organic(word);
      if (items.length > 0) break;
    }
  }
  const out: Source[] = [];
  const seen = new Set<string>();
  for (const i of items) {
    if (seen.has(i.domain)) continue;
    seen.add(i.domain);
    out.push({ url: i.url, title: i.title ?? i.url, domain: i.domain, brand: web.brandOf(i.domain) ?? i.domain });
    if (out.length >= 6) break;
  }
  if (out.length === 0) {
    const page = web.fallbackPage();
    out.push({ ...page, brand: web.brandOf(page.domain) ?? page.domain });
  }
  return out;
}

const topicOf = (prompt: string) => prompt.trim().replace(/[?.!]+$/, '');

const citationOf = (s: Source): Citation => ({ url: s.url, title: s.title, domain: hostOf(s.url) ?? s.domain });

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** The answer of sandbox model `modelId` (1, 2 or 3). */
export function sandboxAnswer(web: SandboxWeb, modelId: number, q: SandboxQuestion): AnswerBody {
  const all = sources(web, q);
  const topic = topicOf(q.prompt);
  const seed = (s: Source) => `${q.prompt}|${modelId}|${q.day}|${s.domain}`;
  if (modelId === 2) {
    const used = all.slice(0, 5);
    const lines = used.map((s, i) => `${s.brand} ${remark(seed(s))} [${i + 1}].`);
    return { text: `On "${topic}", the sources agree on a few names. ${lines.join(' ')}`, citations: used.map(citationOf) };
  }
  if (modelId === 3) {
    const used = all.length > 1 ? all.slice(1, 4) : all;
    const text = `${topic}: ${used.map((s) => `${s.brand} ${remark(seed(s))}`).join('; ')}.`;
    return { text: text.charAt(0).toUpperCase() + text.slice(1), citations: used.map(citationOf) };
  }
  const used = all.slice(0, 3);
  const list = used.map((s) => `- **${s.brand}**: ${s.title}. ${s.brand} ${remark(seed(s))}.`);
  const text = [`Here is what the web says about ${topic}.`, '', ...list, '', `In short, start with ${used[0].brand}.`].join('\n');
  return { text, citations: used.map(citationOf) };
}
