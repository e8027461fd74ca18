/**
 * Link strength: how much a single backlink is worth, 0–10 (`ls`), and the integer
 * `score` that orders backlinks "strongest first". Following the link-index practice of
 * weighting a link by the flow of the page that carries it (Majestic ranks backlinks by
 * source Trust Flow/Citation Flow), with the domain's authority as a tie-breaker:
 *
 *   s = 0.4 · CF(source page) + 0.4 · TF(source page) + 0.2 · pda(source domain)   (0–100)
 *   halved for nofollow and for lost links; mentions (no href) keep 30 %.
 */
export function linkStrengthValue(sourceCf: number, sourceTf: number, sourcePda: number, nofollow: boolean, deleted: boolean, mention: boolean): number {
  let s = 0.4 * sourceCf + 0.4 * sourceTf + 0.2 * sourcePda;
  if (nofollow) s *= 0.5;
  if (deleted) s *= 0.5;
  if (mention) s *= 0.3;
  return s;
}

/** `ls` 0–10. */
export function linkStrength(value: number): number {
  return Math.max(0, Math.min(10, Math.round(value / 10)));
}

/** Sort key, higher is stronger (ties are broken by link id ascending). */
export function linkScore(value: number): number {
  return Math.round(value * 100);
}
