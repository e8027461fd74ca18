/**
 * The words site names are made of (siteGenerator.ts draws them): suffixes of blogs and shops,
 * places, government agencies, newspapers, wikis and link farms.
 */
export const SUFFIXES = [
  'hub',
  'lab',
  'world',
  'zone',
  'hq',
  'guide',
  'pro',
  'daily',
  'insider',
  'central',
  'spot',
  'nest',
  'base',
  'point',
  'mag',
  'corner',
  'life',
  'junkie',
  'geek',
  'nerd',
  'expert',
  'planet',
  'talk',
  'review',
];
export const SHOP_SUFFIXES = ['shop', 'store', 'direct', 'outlet', 'depot', 'mart', 'supply', 'co'];
export const PLACES = [
  'north',
  'south',
  'east',
  'west',
  'lake',
  'river',
  'hill',
  'valley',
  'bay',
  'pine',
  'oak',
  'maple',
  'stone',
  'bright',
  'fair',
  'green',
  'clear',
  'silver',
  'red',
  'high',
];
export const PLACE_ENDS = ['vale', 'field', 'ford', 'wood', 'mont', 'ton', 'bridge', 'haven', 'brook', 'crest', 'view', 'port'];
export const GOV_AGENCIES = [
  'health',
  'energy',
  'transport',
  'education',
  'agriculture',
  'environment',
  'consumer',
  'labor',
  'treasury',
  'commerce',
  'safety',
  'housing',
  'statistics',
  'science',
  'trade',
  'justice',
];
export const NEWS_WORDS = [
  'daily',
  'times',
  'herald',
  'tribune',
  'post',
  'gazette',
  'chronicle',
  'journal',
  'courier',
  'observer',
  'ledger',
  'dispatch',
  'wire',
  'report',
];
/** Words that set a site's name apart from another's ("trueroasthub" beside "roasthub"). */
export const NAME_PREFIXES = ['the', 'my', 'get', 'go', 'true', 'pure', 'smart', 'urban', 'happy', 'daily', 'prime', 'simply', 'just', 'all', 'top', 'one'];
/** Endings of small brands' names, when a niche's known brands have their sites already. */
export const BRAND_ENDS = ['ly', 'ify', 'co', 'labs', 'works', 'ware', 'craft', 'kind', 'wise', 'folk'];
/** Names of general encyclopedias (a niche's wiki is named after its niche). */
export const WIKI_NAMES = ['know', 'fact', 'info', 'omni', 'every', 'open', 'world', 'free'];
export const FARM_WORDS = ['seo', 'links', 'rank', 'backlink', 'top', 'best', 'web', 'traffic', 'free', 'fast', 'boost', 'promo', 'site', 'cheap'];
