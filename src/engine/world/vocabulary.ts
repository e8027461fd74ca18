/**
 * Niche vocabularies of the sandbox web: head terms per language, attributes that
 * narrow a head ("waterproof hiking boots"), brands, and body terms for page text.
 * Seasonality: `peak` month (1–12) and `amplitude`; `trend` is yearly growth.
 */
export interface NicheVocabulary {
  name: string;
  peak: number;
  amplitude: number;
  trend: number;
  /**
   * Median cost per click (USD, US level) of a commercial keyword of the niche; a head whose
   * clicks cost far more or less has its own price (keywordPrices.ts).
   */
  cpc: number;
  heads: { en: string[]; de: string[]; fr: string[] };
  attributes: string[];
  brands: string[];
  terms: string[];
}

export const NICHES: readonly NicheVocabulary[] = [
  {
    name: 'outdoor',
    peak: 6,
    amplitude: 0.35,
    trend: 1.04,
    cpc: 1.0,
    heads: {
      en: [
        'hiking boots',
        'tent',
        'sleeping bag',
        'backpack',
        'camping stove',
        'trekking poles',
        'rain jacket',
        'headlamp',
        'water filter',
        'camping chair',
        'hammock',
        'trail running shoes',
      ],
      de: ['wanderschuhe', 'zelt', 'schlafsack', 'rucksack', 'campingkocher', 'regenjacke'],
      fr: ['chaussures de randonnée', 'tente', 'sac de couchage', 'sac à dos', 'réchaud camping', 'veste de pluie'],
    },
    attributes: ['waterproof', 'lightweight', 'ultralight', 'womens', 'mens', 'winter', '4 season', 'budget'],
    brands: ['summitpeak', 'trailforge', 'alpenwild', 'northridge'],
    terms: [
      'trail',
      'outdoor',
      'camping',
      'mountain',
      'gear',
      'weather',
      'durable',
      'comfort',
      'weight',
      'hike',
      'summit',
      'waterproofing',
      'fabric',
      'sole',
      'camp',
    ],
  },
  {
    name: 'fitness',
    peak: 1,
    amplitude: 0.3,
    trend: 1.06,
    cpc: 1.4,
    heads: {
      en: [
        'running shoes',
        'protein powder',
        'yoga mat',
        'dumbbells',
        'treadmill',
        'resistance bands',
        'home gym',
        'workout plan',
        'fitness tracker',
        'kettlebell',
        'exercise bike',
        'pre workout',
      ],
      de: ['laufschuhe', 'proteinpulver', 'yogamatte', 'hanteln', 'laufband', 'trainingsplan'],
      fr: ['chaussures de course', 'protéine en poudre', 'tapis de yoga', 'haltères', 'tapis de course', 'programme musculation'],
    },
    attributes: ['adjustable', 'beginner', 'vegan', 'foldable', 'cheap', 'professional', 'womens', 'compact'],
    brands: ['ironpulse', 'fitnova', 'strideon', 'corevital'],
    terms: [
      'workout',
      'muscle',
      'training',
      'cardio',
      'strength',
      'reps',
      'fitness',
      'exercise',
      'health',
      'routine',
      'endurance',
      'recovery',
      'gym',
      'weight',
      'calories',
    ],
  },
  {
    name: 'coffee',
    peak: 11,
    amplitude: 0.15,
    trend: 1.03,
    cpc: 0.9,
    heads: {
      en: [
        'espresso machine',
        'coffee grinder',
        'french press',
        'coffee beans',
        'pour over coffee',
        'cold brew',
        'milk frother',
        'coffee maker',
        'moka pot',
        'latte art',
      ],
      de: ['kaffeemaschine', 'kaffeemühle', 'kaffeebohnen', 'siebträgermaschine', 'milchaufschäumer'],
      fr: ['machine à café', 'moulin à café', 'grains de café', 'cafetière italienne', 'mousseur à lait'],
    },
    attributes: ['automatic', 'manual', 'burr', 'organic', 'single origin', 'decaf', 'portable', 'dual boiler'],
    brands: ['brewhaus', 'crema lab', 'beanworks', 'roastery one'],
    terms: ['coffee', 'brew', 'espresso', 'roast', 'grind', 'aroma', 'crema', 'barista', 'bean', 'extraction', 'milk', 'cup', 'flavor', 'acidity', 'water'],
  },
  {
    name: 'finance',
    peak: 1,
    amplitude: 0.2,
    trend: 1.05,
    cpc: 6.5,
    heads: {
      en: [
        'credit card',
        'savings account',
        'personal loan',
        'mortgage',
        'index funds',
        'budget app',
        'stock broker',
        'retirement plan',
        'credit score',
        'car insurance',
        'life insurance',
        'tax software',
      ],
      de: ['kreditkarte', 'tagesgeld', 'kredit', 'baufinanzierung', 'etf sparplan', 'kfz versicherung'],
      fr: ['carte de crédit', 'livret épargne', 'prêt personnel', 'crédit immobilier', 'assurance auto', 'assurance vie'],
    },
    attributes: ['low interest', 'no fee', 'online', 'student', 'high yield', 'fixed rate', 'small business', 'instant'],
    brands: ['clearbank', 'moneywise', 'fundly', 'ledgerly'],
    terms: ['money', 'interest', 'rate', 'bank', 'loan', 'credit', 'savings', 'invest', 'fees', 'account', 'budget', 'tax', 'insurance', 'return', 'apr'],
  },
  {
    name: 'travel',
    peak: 7,
    amplitude: 0.4,
    trend: 1.02,
    cpc: 1.3,
    heads: {
      en: [
        'cheap flights',
        'hotels in paris',
        'travel insurance',
        'all inclusive resorts',
        'road trip',
        'packing list',
        'carry on luggage',
        'city break',
        'beach holidays',
        'travel adapter',
      ],
      de: ['billigflüge', 'hotel paris', 'reiseversicherung', 'pauschalreise', 'handgepäck koffer'],
      fr: ['vols pas chers', 'hôtel paris', 'assurance voyage', 'séjour tout compris', 'valise cabine'],
    },
    attributes: ['last minute', 'family', 'luxury', 'budget', 'weekend', 'europe', 'solo', 'summer'],
    brands: ['globetrail', 'jetnest', 'wanderly', 'staybay'],
    terms: [
      'travel',
      'trip',
      'flight',
      'hotel',
      'destination',
      'booking',
      'holiday',
      'beach',
      'city',
      'airport',
      'luggage',
      'itinerary',
      'tour',
      'visa',
      'resort',
    ],
  },
  {
    name: 'gardening',
    peak: 4,
    amplitude: 0.45,
    trend: 1.03,
    cpc: 0.8,
    heads: {
      en: [
        'raised garden bed',
        'lawn mower',
        'tomato plants',
        'compost bin',
        'garden hose',
        'pruning shears',
        'grow lights',
        'fertilizer',
        'greenhouse',
        'hedge trimmer',
      ],
      de: ['hochbeet', 'rasenmäher', 'tomatenpflanzen', 'komposter', 'gartenschlauch'],
      fr: ['potager surélevé', 'tondeuse', 'plants de tomates', 'composteur', 'tuyau arrosage'],
    },
    attributes: ['cordless', 'electric', 'organic', 'small', 'indoor', 'heavy duty', 'wooden', 'self propelled'],
    brands: ['greenroot', 'bloomcraft', 'gardenly', 'leafwise'],
    terms: ['garden', 'soil', 'plant', 'seed', 'grow', 'water', 'lawn', 'flower', 'harvest', 'compost', 'sun', 'prune', 'vegetable', 'bed', 'root'],
  },
  {
    name: 'pets',
    peak: 5,
    amplitude: 0.1,
    trend: 1.05,
    cpc: 1.1,
    heads: {
      en: ['dog food', 'cat litter', 'dog bed', 'puppy training', 'cat tree', 'dog harness', 'aquarium', 'pet insurance', 'dog toys', 'bird cage'],
      de: ['hundefutter', 'katzenstreu', 'hundebett', 'welpenerziehung', 'kratzbaum'],
      fr: ['croquettes chien', 'litière chat', 'panier chien', 'éducation chiot', 'arbre à chat'],
    },
    attributes: ['grain free', 'large breed', 'orthopedic', 'natural', 'senior', 'small dog', 'clumping', 'indestructible'],
    brands: ['pawsome', 'furbelly', 'tailwagon', 'kittycove'],
    terms: ['dog', 'cat', 'pet', 'puppy', 'kitten', 'vet', 'breed', 'food', 'training', 'toy', 'health', 'fur', 'walk', 'treat', 'behavior'],
  },
  {
    name: 'tech',
    peak: 11,
    amplitude: 0.25,
    trend: 1.07,
    cpc: 2.0,
    heads: {
      en: [
        'gaming laptop',
        'wireless earbuds',
        'mechanical keyboard',
        'smartphone',
        'monitor',
        'external hard drive',
        'wifi router',
        'smartwatch',
        'graphics card',
        'webcam',
        'tablet',
        'vpn',
      ],
      de: ['gaming laptop', 'kopfhörer', 'tastatur', 'smartphone', 'monitor', 'router'],
      fr: ['pc portable gamer', 'écouteurs sans fil', 'clavier mécanique', 'smartphone', 'écran pc', 'routeur wifi'],
    },
    attributes: ['4k', 'wireless', 'noise cancelling', 'budget', 'rgb', 'portable', 'usb c', '144hz'],
    brands: ['voltix', 'pixelcore', 'nexaphone', 'quantix'],
    terms: [
      'battery',
      'screen',
      'performance',
      'processor',
      'wireless',
      'specs',
      'display',
      'storage',
      'speed',
      'device',
      'charging',
      'bluetooth',
      'memory',
      'software',
      'benchmark',
    ],
  },
  {
    name: 'cooking',
    peak: 12,
    amplitude: 0.2,
    trend: 1.02,
    cpc: 0.6,
    heads: {
      en: [
        'air fryer',
        'chicken recipes',
        'sourdough bread',
        'cast iron skillet',
        'slow cooker',
        'meal prep',
        'chef knife',
        'banana bread',
        'pasta recipes',
        'stand mixer',
      ],
      de: ['heißluftfritteuse', 'hähnchen rezepte', 'sauerteigbrot', 'gusseisenpfanne', 'schnellkochtopf'],
      fr: ['friteuse sans huile', 'recette poulet', 'pain au levain', 'poêle en fonte', 'robot pâtissier'],
    },
    attributes: ['easy', 'healthy', 'quick', 'vegetarian', 'keto', 'non stick', 'large', 'gluten free'],
    brands: ['kitchenly', 'panmaster', 'chefforge', 'tastebud'],
    terms: ['recipe', 'cook', 'bake', 'oven', 'ingredients', 'flavor', 'kitchen', 'dinner', 'minutes', 'heat', 'dough', 'sauce', 'meal', 'serve', 'taste'],
  },
  {
    name: 'home',
    peak: 3,
    amplitude: 0.2,
    trend: 1.03,
    cpc: 1.6,
    heads: {
      en: [
        'robot vacuum',
        'mattress',
        'air purifier',
        'standing desk',
        'office chair',
        'sofa bed',
        'smart thermostat',
        'dehumidifier',
        'blackout curtains',
        'bed sheets',
      ],
      de: ['saugroboter', 'matratze', 'luftreiniger', 'höhenverstellbarer schreibtisch', 'bürostuhl'],
      fr: ['aspirateur robot', 'matelas', 'purificateur d air', 'bureau assis debout', 'chaise de bureau'],
    },
    attributes: ['memory foam', 'quiet', 'ergonomic', 'king size', 'smart', 'cordless', 'hypoallergenic', 'cheap'],
    brands: ['restwell', 'homenest', 'cleanbot', 'sitright'],
    terms: ['home', 'room', 'sleep', 'clean', 'comfort', 'design', 'air', 'floor', 'furniture', 'bedroom', 'office', 'noise', 'size', 'warranty', 'quality'],
  },
  {
    name: 'education',
    peak: 9,
    amplitude: 0.3,
    trend: 1.04,
    cpc: 3.0,
    heads: {
      en: [
        'online courses',
        'learn python',
        'spanish lessons',
        'mba programs',
        'scholarships',
        'sat prep',
        'coding bootcamp',
        'study tips',
        'student loans',
        'online degree',
      ],
      de: ['online kurse', 'python lernen', 'englisch lernen', 'stipendium', 'fernstudium'],
      fr: ['cours en ligne', 'apprendre python', 'cours d anglais', 'bourse étudiante', 'formation à distance'],
    },
    attributes: ['free', 'accredited', 'online', 'part time', 'certificate', 'beginner', 'advanced', 'affordable'],
    brands: ['learnhub', 'edvance', 'scholarly', 'mindpath'],
    terms: [
      'course',
      'learn',
      'student',
      'study',
      'lesson',
      'degree',
      'university',
      'exam',
      'teacher',
      'skills',
      'class',
      'program',
      'certificate',
      'knowledge',
      'school',
    ],
  },
  {
    name: 'automotive',
    peak: 4,
    amplitude: 0.15,
    trend: 1.01,
    cpc: 1.8,
    heads: {
      en: ['electric cars', 'car tires', 'dash cam', 'car battery', 'used cars', 'car wax', 'jump starter', 'oil change', 'car seat covers', 'ev charger'],
      de: ['elektroauto', 'autoreifen', 'dashcam', 'autobatterie', 'gebrauchtwagen'],
      fr: ['voiture électrique', 'pneus voiture', 'caméra embarquée', 'batterie voiture', 'voiture occasion'],
    },
    attributes: ['all season', 'cheap', 'best rated', 'portable', 'winter', 'hybrid', 'suv', 'fast'],
    brands: ['drivex', 'motorlane', 'voltcar', 'tiretrack'],
    terms: ['car', 'drive', 'engine', 'road', 'vehicle', 'tire', 'battery', 'mileage', 'fuel', 'charging', 'safety', 'dealer', 'model', 'range', 'maintenance'],
  },
  {
    name: 'beauty',
    peak: 12,
    amplitude: 0.2,
    trend: 1.05,
    cpc: 1.4,
    heads: {
      en: [
        'moisturizer',
        'sunscreen',
        'hair dryer',
        'vitamin c serum',
        'electric toothbrush',
        'retinol cream',
        'dry shampoo',
        'face wash',
        'hair straightener',
        'perfume',
      ],
      de: ['feuchtigkeitscreme', 'sonnencreme', 'haartrockner', 'vitamin c serum', 'elektrische zahnbürste'],
      fr: ['crème hydratante', 'crème solaire', 'sèche cheveux', 'sérum vitamine c', 'brosse à dents électrique'],
    },
    attributes: ['sensitive skin', 'oily skin', 'natural', 'spf 50', 'anti aging', 'travel size', 'fragrance free', 'professional'],
    brands: ['glowly', 'purederm', 'silkara', 'lumiskin'],
    terms: ['skin', 'hair', 'cream', 'beauty', 'routine', 'ingredients', 'serum', 'face', 'glow', 'dry', 'care', 'shine', 'apply', 'texture', 'scent'],
  },
];

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

export const LANGUAGE_IDS = { en: 1000, de: 1001, fr: 1002 } as const;
export type WorldLanguage = keyof typeof LANGUAGE_IDS;

/**
 * Country markets per language: Google Ads geotarget id and the typical share of the
 * language's searches (noised per keyword, then normalised).
 */
export const MARKETS: Record<WorldLanguage, readonly { locationId: number; share: number }[]> = {
  en: [
    { locationId: 2840, share: 0.5 },
    { locationId: 2826, share: 0.13 },
    { locationId: 2124, share: 0.07 },
    { locationId: 2036, share: 0.06 },
    { locationId: 2356, share: 0.1 },
    { locationId: 2372, share: 0.02 },
    { locationId: 2554, share: 0.015 },
    { locationId: 2710, share: 0.025 },
    { locationId: 2702, share: 0.015 },
    { locationId: 2608, share: 0.03 },
  ],
  de: [
    { locationId: 2276, share: 0.8 },
    { locationId: 2040, share: 0.1 },
    { locationId: 2756, share: 0.1 },
  ],
  fr: [
    { locationId: 2250, share: 0.75 },
    { locationId: 2056, share: 0.08 },
    { locationId: 2756, share: 0.05 },
    { locationId: 2124, share: 0.1 },
    { locationId: 2504, share: 0.02 },
  ],
};

/** Generic anchors ("click here") and filler words for page text. */
export const GENERIC_ANCHORS = ['click here', 'read more', 'website', 'here', 'this site', 'learn more', 'source', 'link', 'visit', 'more info'];
