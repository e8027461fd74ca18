/**
 * Keyword modifiers of the sandbox web: templates around a head ("beste {h}", "{h} pas
 * cher") with the intents they signal and the share of the head's searches they draw.
 * English keywords come from the patterns of headProfiles.ts, built with `modifier` too.
 */
/** Keyword modifiers by language: the text template (`{h}` = head) and the intents it signals. */
export interface Modifier {
  template: string;
  intent: string;
  /** Share of the head's volume the modified keyword draws (median). */
  share: number;
  /** A question when its intents say so ("was ist {h}", "how does {a}{h} work"). */
  kind: 'modifier' | 'question';
}

/** A modifier (or an English pattern: `extra` holds its family, clashes and needs). */
export function modifier<Extra extends object = object>(template: string, intent: string, share: number, extra?: Extra): Modifier & Extra {
  const kind = intent.split(',').includes('question') ? 'question' : 'modifier';
  return { template, intent, share, kind, ...(extra as Extra) };
}

/** German and French modifiers (English keywords come from headProfiles.ts patterns). */
export const MODIFIERS: Record<'de' | 'fr', readonly Modifier[]> = {
  de: [
    modifier('beste {h}', 'commercial', 0.1),
    modifier('{h} test', 'commercial', 0.08),
    modifier('{h} günstig', 'transactional', 0.04),
    modifier('{h} kaufen', 'transactional', 0.05),
    modifier('{h} in der nähe', 'transactional,local', 0.03),
    modifier('{h} vergleich', 'commercial', 0.02),
    modifier('{h} für anfänger', 'informational', 0.01),
    modifier('{h} angebot', 'transactional', 0.01),
    modifier('was ist {h}', 'informational,question', 0.008),
    modifier('wie funktioniert {h}', 'informational,question', 0.005),
    modifier('welche {h}', 'commercial,question', 0.004),
  ],
  fr: [
    modifier('meilleur {h}', 'commercial', 0.1),
    modifier('{h} pas cher', 'transactional', 0.05),
    modifier('{h} avis', 'commercial', 0.04),
    modifier('acheter {h}', 'transactional', 0.03),
    modifier('{h} près de moi', 'transactional,local', 0.02),
    modifier('{h} comparatif', 'commercial', 0.02),
    modifier('{h} pour débutant', 'informational', 0.01),
    modifier('{h} promo', 'transactional', 0.01),
    modifier('comment choisir {h}', 'informational,question', 0.008),
    modifier('qu est ce que {h}', 'informational,question', 0.005),
    modifier('pourquoi {h}', 'informational,question', 0.003),
  ],
};
