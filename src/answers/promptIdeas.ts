/**
 * Prompt suggestions to bootstrap a monitor (POST /answer-tool/prompts/generate), from the
 * research data: the keywords the brand's domain ranks for in the location, the most searched
 * first, each turned into the question a person would ask an assistant ("trail running shoes"
 * → "What are the best trail running shoes?"); a question keyword stays as asked. Without
 * ranking keywords, general questions about the brand. The perception says how the research
 * data positions the brand: its kind of site and the topics it is found for.
 */
import { hash32 } from '../engine/world/random.js';

export interface BrandResearch {
  brand: string;
  domain: string;
  /** Keywords the domain ranks for, most searched first. */
  keywords: readonly { kw: string; sv: number; position: number }[];
  /** The kind of site the research data knows it as (blog, shop, brand, news, …), or null when it does not know the domain. */
  kind: string | null;
  locationLabel: string;
}

const QUESTION = /^(what|how|which|why|when|where|who|is|are|can|do|does|should|will)\b/;
const TEMPLATES = [
  (kw: string) => `What are the best ${kw}?`,
  (kw: string) => `Which ${kw} do you recommend?`,
  (kw: string) => `Where can I find good ${kw}?`,
  (kw: string) => `What should I know before choosing ${kw}?`,
];

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function suggestPrompts(r: BrandResearch, max: number): { prompts: string[]; perception: string } {
  const prompts = new Map<string, string>();
  for (const k of r.keywords) {
    if (prompts.size >= max) break;
    const kw = k.kw.trim();
    if (kw === '' || kw.includes(r.brand.toLowerCase())) continue;
    const prompt = QUESTION.test(kw) ? `${sentence(kw)}?` : TEMPLATES[hash32(kw) % TEMPLATES.length](kw);
    prompts.set(prompt.toLowerCase(), prompt);
  }
  const general = [
    `What is ${r.brand}?`,
    `Is ${r.brand} any good?`,
    `What are the alternatives to ${r.brand}?`,
    `What do people say about ${r.brand}?`,
    `Is ${r.domain} trustworthy?`,
  ];
  for (const p of general) {
    if (prompts.size >= max) break;
    prompts.set(p.toLowerCase(), p);
  }
  const topics = r.keywords.slice(0, 3).map((k) => `“${k.kw}”`);
  const perception =
    r.kind === null
      ? `${r.brand} (${r.domain}) is not in the research data yet: the suggestions are general questions about the brand.`
      : `${r.brand} (${r.domain}) is known as a ${r.kind === 'brand' ? 'brand site' : r.kind} ${
          topics.length > 0
            ? `found for ${r.keywords.length} keywords in ${r.locationLabel}, led by ${topics.join(', ')}`
            : `with no ranking keywords in ${r.locationLabel}`
        }.`;
  return { prompts: [...prompts.values()], perception };
}
