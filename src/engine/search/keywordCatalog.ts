/**
 * The keywords the engine knows (sandbox and imported), indexed for lookup by text and
 * language and by topical token, plus the niche a free-text keyword belongs to.
 */
import type { CorpusKeyword, SearchCorpus } from './searchCorpus.js';
import { contentTokens, normaliseKeyword } from './text.js';

export class KeywordCatalog {
  private readonly byText = new Map<string, number[]>();
  private readonly byToken = new Map<string, number[]>();
  /** Niche votes of each token: how many keywords of each niche use it. */
  private readonly tokenNiches = new Map<string, Map<number, number>>();

  constructor(private readonly corpus: SearchCorpus) {
    corpus.keywords.forEach((k, i) => {
      const list = this.byText.get(k.kw);
      if (list) list.push(i);
      else this.byText.set(k.kw, [i]);
      for (const t of contentTokens(k.kw)) {
        const posting = this.byToken.get(t);
        if (posting) posting.push(i);
        else this.byToken.set(t, [i]);
        if (k.nicheId !== null) {
          let votes = this.tokenNiches.get(t);
          if (!votes) this.tokenNiches.set(t, (votes = new Map()));
          votes.set(k.nicheId, (votes.get(k.nicheId) ?? 0) + 1);
        }
      }
    });
  }

  get size(): number {
    return this.corpus.keywords.length;
  }

  at(index: number): CorpusKeyword {
    return this.corpus.keywords[index];
  }

  /**
   * Index of the known keyword with this text in this language; language 0 takes any
   * language, preferring `preferLanguage`.
   */
  find(text: string, languageId: number, preferLanguage = 1000): number | undefined {
    const list = this.byText.get(normaliseKeyword(text));
    if (!list) return undefined;
    if (languageId !== 0) return list.find((i) => this.corpus.keywords[i].languageId === languageId);
    return list.find((i) => this.corpus.keywords[i].languageId === preferLanguage) ?? list[0];
  }

  /** Indexes of the keywords using a topical token. */
  withToken(token: string): readonly number[] {
    return this.byToken.get(token) ?? [];
  }

  /**
   * The niche of a keyword: its own for a known keyword, otherwise the niche most of its
   * tokens are used in (null when no token is known).
   */
  nicheOf(text: string, languageId: number): number | null {
    const known = this.find(text, languageId);
    if (known !== undefined) return this.corpus.keywords[known].nicheId;
    const votes = new Map<number, number>();
    for (const t of contentTokens(text)) {
      const niches = this.tokenNiches.get(t);
      if (!niches) continue;
      let total = 0;
      for (const n of niches.values()) total += n;
      // Each token casts one vote split by how its uses spread over niches.
      for (const [niche, n] of niches) votes.set(niche, (votes.get(niche) ?? 0) + n / total);
    }
    let best: number | null = null;
    let bestVotes = 0;
    for (const [niche, v] of votes) {
      if (v > bestVotes || (v === bestVotes && best !== null && niche < best)) {
        best = niche;
        bestVotes = v;
      }
    }
    return best;
  }

  /**
   * The known keyword of the same language sharing most topical tokens with a text
   * (heads preferred on ties), to derive metrics of a keyword the world does not have.
   */
  closest(text: string, languageId: number): number | undefined {
    const tokens = contentTokens(text);
    const shared = new Map<number, number>();
    for (const t of tokens) {
      for (const i of this.withToken(t)) {
        if (this.corpus.keywords[i].languageId === languageId) shared.set(i, (shared.get(i) ?? 0) + 1);
      }
    }
    let best: number | undefined;
    let bestScore = -1;
    for (const [i, n] of shared) {
      const k = this.corpus.keywords[i];
      // Prefer keywords covering more of the text's words, then shorter (closer to a head), then bigger.
      const score = n * 1000 - contentTokens(k.kw).length * 10 + Math.log10(1 + k.volume);
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    return best;
  }
}
