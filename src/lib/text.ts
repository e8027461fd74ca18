/**
 * Text that clients give names and keywords with: normalised (NFC, trimmed) and refused
 * when it holds what no name or keyword should: control characters (NUL, CR, LF, tab and the
 * C1 range), lone UTF-16 surrogates (not text at all), bidirectional overrides and isolates
 * (they make a name display as something else), or nothing visible (spaces, zero-width and
 * other format characters only).
 *
 * @example
 * cleanText('  Café\u0301 ');   // 'Café́' (NFC), trimmed
 * cleanText('a\u0000b');        // null
 * cleanText('\u200b\u200b');    // null
 */

/** C0 and C1 controls and DEL; lone surrogates; bidi embeddings, overrides and isolates. */
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What is not visible on its own: separators, spaces, format characters (zero-width and the like). */
const INVISIBLE = /^[\p{Z}\p{Cf}\s\u115F\u1160\u3164\uFFA0\u2800]*$/u;

/** Whether the text holds a control character, a lone surrogate or a bidi override or isolate. */
export function hasForbiddenChars(text: string): boolean {
  return FORBIDDEN.test(text);
}

/** The text normalised, or null when it must be refused (see the module comment). */
export function cleanText(text: string): string | null {
  if (FORBIDDEN.test(text)) return null;
  const normal = text.normalize('NFC').trim();
  if (INVISIBLE.test(normal)) return null;
  return normal;
}
