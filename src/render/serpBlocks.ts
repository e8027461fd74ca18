/**
 * Drawing of each SERP block type: organic results, ads, and feature boxes (the packs of cards
 * and pictures in serpPacks.ts, the pieces they share in blockParts.ts). Every
 * renderer draws at a given top-left and width and reports the height it used, so the
 * page layout can stack blocks and keep the two desktop columns apart.
 */
import { heading, members, membersOrSelf, result, textLines, wrapped, type BlockFrame, type DrawnBlock } from './blockParts.js';
import { textWidth, truncateToWidth, wrapText } from './fontMetrics.js';
import { images, knowledgePanel, localPack, shopping, storyCards, videos } from './serpPacks.js';
import type { SnapshotItem } from './snapshotInput.js';
import { COLORS, chevron, magnifier } from './snapshotTheme.js';
import { line, rect, text } from './svgMarkup.js';

function organic(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  return result(f, f.y, item);
}

function ads(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  let y = f.y;
  let svg = '';
  membersOrSelf(item).forEach((ad, i) => {
    if (i > 0) y += f.mobile ? 20 : 24;
    const drawn = result(f, y, ad, 'Sponsored');
    svg += drawn.svg;
    y += drawn.height;
  });
  return { svg, height: y - f.y };
}

function featuredSnippet(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const t = f.type;
  const pad = f.mobile ? 0 : 20;
  const inner = { ...f, x: f.x + pad, width: f.width - 2 * pad };
  let y = f.y + (f.mobile ? 0 : 18);
  const answer = wrapped(inner.x, y, inner.width, item.desc ?? item.title, 6, { size: t.snippet + 2, line: t.snippetLine + 4, fill: COLORS.text });
  y += answer.height + 14;
  const rule = line(inner.x, y, inner.x + inner.width, y, COLORS.divider);
  y += 14;
  const source = result(inner, y, { ...item, desc: null });
  y += source.height + 12;
  const about = text(inner.x + inner.width, y + 10, 'Featured snippet', { size: 12, fill: COLORS.muted, anchor: 'end' });
  y += 18 + (f.mobile ? 0 : 8);
  const box = f.mobile ? '' : rect(f.x, f.y, f.width, y - f.y, { rx: 10, fill: '#ffffff', stroke: COLORS.border, 'stroke-width': 1 });
  return { svg: box + answer.svg + rule + source.svg + about, height: y - f.y };
}

function peopleAlsoAsk(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const head = heading(f, 'People also ask');
  let y = f.y + head.height;
  let svg = head.svg;
  const questions = membersOrSelf(item).slice(0, 6);
  for (const q of questions) {
    svg += line(f.x, y, f.x + f.width, y, COLORS.border);
    const lines = wrapText(q.title ?? '', { width: f.width - 48, fontSize: 16, maxLines: 2 });
    const rowHeight = Math.max(f.type.row, lines.length * 22 + 20);
    svg += textLines(f.x, y + (rowHeight - lines.length * 22) / 2, lines, { size: 16, line: 22, fill: COLORS.text }).svg;
    svg += chevron(f.x + f.width - 14, y + rowHeight / 2, 12, COLORS.icon);
    y += rowHeight;
  }
  svg += line(f.x, y, f.x + f.width, y, COLORS.border);
  return { svg, height: y - f.y + 4 };
}

function chips(item: SnapshotItem, f: BlockFrame, title: string): DrawnBlock {
  const head = heading(f, title);
  let y = f.y + head.height;
  let svg = head.svg;
  const queries = membersOrSelf(item).slice(0, 8);
  const perRow = f.mobile ? 1 : 2;
  const gap = 10;
  const chipW = (f.width - gap * (perRow - 1)) / perRow;
  const chipH = f.type.chipHeight;
  queries.forEach((q, i) => {
    const cx = f.x + (i % perRow) * (chipW + gap);
    const cy = y + Math.floor(i / perRow) * (chipH + gap);
    svg += rect(cx, cy, chipW, chipH, { rx: chipH / 2, fill: COLORS.chip });
    svg += magnifier(cx + 22, cy + chipH / 2, 16, COLORS.icon);
    svg += text(cx + 44, cy + chipH / 2 + 5, truncateToWidth(q.title ?? '', chipW - 60, 14), { size: 14, fill: COLORS.text, bold: true });
  });
  y += Math.ceil(queries.length / perRow) * (chipH + gap);
  return { svg, height: y - f.y };
}

function spelling(item: SnapshotItem, f: BlockFrame, prompt: string): DrawnBlock {
  const suggestion = item.title ?? members(item)[0]?.title ?? '';
  const promptWidth = textWidth(`${prompt} `, 16);
  const svg =
    text(f.x, f.y + 20, prompt, { size: 16, fill: COLORS.snippet }) +
    text(f.x + promptWidth, f.y + 20, truncateToWidth(suggestion, f.width - promptWidth, 16, true), { size: 16, fill: COLORS.title, bold: true });
  return { svg, height: 32 };
}

/** Headings of the feature types drawn as a generic titled box. */
const GENERIC_TITLES: Readonly<Record<string, string>> = {
  KNO_GRAPH_LINK: 'Knowledge panel',
  FLIGHTS: 'Flights',
  VIDEO_PANEL: 'Video',
  INSTALL_APP: 'App',
  INSTALL_APP_GRID: 'Apps',
  PROGRAM_OVERVIEW: 'Program overview',
  SIMILAR_PLACES: 'Similar places',
  POPULAR_LIST: 'Popular',
  QUANTITY_ANSWER: 'Answer',
  CURRENCY: 'Currency converter',
  TIME: 'Time',
  WEATHER: 'Weather',
  TRANSLATOR: 'Translate',
  DICTIONARY: 'Dictionary',
  TOP_SIGHTS: 'Top sights',
  TRAVEL_BOX: 'Travel',
  INDEPTH_ARTICLE: 'In-depth articles',
  JOB_POSTING: 'Jobs',
  SPORTS: 'Sports',
};

/** "SOME_TYPE" → "Some type", for types this renderer has no heading for. */
function humanise(type: string): string {
  const words = type.toLowerCase().replace(/_+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : 'Result';
}

function genericBox(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const pad = f.mobile ? 0 : 18;
  const innerX = f.x + pad;
  const innerW = f.width - 2 * pad;
  let y = f.y + pad;
  let svg = text(innerX, y + 18, truncateToWidth(GENERIC_TITLES[item.type] ?? humanise(item.type), innerW, 18), { size: 18, fill: COLORS.text, bold: true });
  y += 34;
  if (item.url || item.domain) {
    const drawn = result({ ...f, x: innerX, width: innerW }, y, item);
    svg += drawn.svg;
    y += drawn.height + 8;
  } else if (item.title || item.desc) {
    // An answer without a source page (a definition, a time, a conversion): just its text.
    const answer = wrapped(innerX, y, innerW, item.title, 2, { size: 20, line: 28, fill: COLORS.text });
    const detail = wrapped(innerX, y + answer.height + 2, innerW, item.desc, 4, { size: 14, line: 22, fill: COLORS.snippet });
    svg += answer.svg + detail.svg;
    y += answer.height + detail.height + 10;
  }
  for (const m of members(item).slice(0, 4)) {
    svg += line(innerX, y, innerX + innerW, y, COLORS.divider);
    svg += text(innerX, y + 26, truncateToWidth(m.title ?? m.url ?? '', innerW, 15), { size: 15, fill: COLORS.title });
    y += 40;
  }
  y += Math.max(0, pad - 8);
  const box = f.mobile ? '' : rect(f.x, f.y, f.width, y - f.y, { rx: 10, fill: '#ffffff', stroke: COLORS.border });
  return { svg: box + svg, height: y - f.y };
}

/** Draws one SERP item as the block a results page shows for its type. */
export function drawBlock(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  switch (item.type) {
    case 'ORGANIC':
      return organic(item, f);
    case 'ADV_TOP':
    case 'ADV_BOTTOM':
      return ads(item, f);
    case 'FEATURED_SNIPPET':
      return featuredSnippet(item, f);
    case 'SIMILAR_QUESTIONS':
      return peopleAlsoAsk(item, f);
    case 'LOCAL_PACK':
      return localPack(item, f, f.keyword);
    case 'TOP_STORIES':
    case 'NEWS_CAROUSEL':
    case 'TOP_CAROUSEL':
      return storyCards(item, f, 'Top stories');
    case 'NEWS_PACK':
      return storyCards(item, f, 'News');
    case 'VIDEO_PACK':
      return videos(item, f);
    case 'IMG_PACK':
      return images(item, f);
    case 'KNO_GRAPH':
      return knowledgePanel(item, f);
    case 'SHOP_RESULTS':
      return shopping(item, f, f.keyword);
    case 'SIMILAR_QUERIES':
      return chips(item, f, 'Related searches');
    case 'SIMILAR_ENTITIES':
    case 'SIMILAR_ENTITIES2':
      return chips(item, f, 'People also search for');
    case 'SPECIFY_QUERY':
      return chips(item, f, 'Refine this search');
    case 'SPELL_ERROR':
      return spelling(item, f, 'Showing results for');
    case 'SUGGESTION':
      return spelling(item, f, 'Did you mean:');
    default:
      return genericBox(item, f);
  }
}
