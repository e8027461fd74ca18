/**
 * Keyword and page text normalisation shared by the keyword catalogue, the BM25 index
 * and the intent model, so that a keyword typed by a client, a keyword of the sandbox
 * web and a page title all split into the same tokens.
 */

/** Trims, lower-cases (Unicode NFKC) and collapses runs of whitespace: the keyword's identity. */
export function normaliseKeyword(text: string): string {
  return text.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}

const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Lower-case word tokens (letters and digits; an apostrophe suffix stays with its word). */
export function tokenize(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(TOKEN) ?? [];
}

/**
 * Function words that carry no topic. They still count for BM25 (its idf makes them
 * cheap) but are ignored when keywords are compared by shared tokens and when the
 * missing words of a title are listed.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'can',
  'do',
  'does',
  'for',
  'from',
  'how',
  'i',
  'in',
  'is',
  'it',
  'my',
  'of',
  'on',
  'or',
  'should',
  'the',
  'to',
  'vs',
  'what',
  'when',
  'where',
  'which',
  'who',
  'why',
  'with',
  'you',
  'your',
  'me',
  'near',
  // German, French and Spanish articles and prepositions, for the other sandbox languages.
  'der',
  'die',
  'das',
  'und',
  'für',
  'mit',
  'von',
  'le',
  'la',
  'les',
  'de',
  'des',
  'et',
  'pour',
  'el',
  'los',
  'las',
  'y',
  'para',
  'con',
]);

/** The distinct topical tokens of a keyword, in order of first appearance. */
export function contentTokens(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => !STOP_WORDS.has(t)))];
}
