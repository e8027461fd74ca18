/**
 * What a SERP snapshot is drawn from: the part of a stored Serp (DESIGN.md §5) that the page
 * layout (serpSnapshot.ts) and the block renderers (serpBlocks.ts) read. Apart from both, since
 * the layout calls the renderers and both need these shapes.
 */

export interface SnapshotBox {
  t: number;
  l: number;
  b: number;
  r: number;
}

/** A pack member: an ad, a place, a story, a question, a product, ... */
export interface SnapshotMember {
  type?: string;
  url: string | null;
  title: string | null;
  desc: string | null;
  domain: string | null;
  /** Shown on product cards; otherwise a price found in the title or description is used. */
  price?: string | null;
}

export interface SnapshotItem {
  type: string;
  url: string | null;
  title: string | null;
  desc: string | null;
  domain: string | null;
  /** Pixel box from the engine's layout model (DESIGN.md §5 SerpItem `size`). */
  size?: SnapshotBox | null;
  items?: readonly SnapshotMember[];
}

/** The part of a stored Serp (DESIGN.md §5) the snapshot needs; a Serp object fits as it is. */
export interface SnapshotSerp {
  kw: string;
  /** 1 desktop, 2 mobile. */
  platform_id: number;
  location: { label: string; code: string };
  /** The search engine's domain (e.g. google.de); else taken from `serp_source_url`. */
  engine_domain?: string | null;
  serp_source_url?: string | null;
  /** Estimated total results ("About N results"). */
  results: number;
  items: readonly SnapshotItem[];
}
