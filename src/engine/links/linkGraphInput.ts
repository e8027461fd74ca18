/**
 * Everything the link metrics need, in typed arrays with 0-based indexes (database id =
 * index + 1). Built by the world generator from memory or loaded from the research store
 * after an import (graphLoader.ts), so both paths share one computation.
 */
export interface LinkGraphInput {
  asOfDay: number;
  pageCount: number;
  pageHost: Int32Array;
  pageRoot: Int32Array;
  pageIsHome: Uint8Array;
  pageShares: Int32Array;
  pagePublished: Int32Array;
  hostCount: number;
  hostRoot: Int32Array;
  /** Dense ids of IP addresses and /24 subnets. */
  hostIp: Int32Array;
  hostSubnet: Int32Array;
  rootCount: number;
  rootTrusted: Uint8Array;
  /** 2 exact .edu, 1 other education suffix, 0 none (urls.ts domainClasses). */
  rootEdu: Uint8Array;
  rootGov: Uint8Array;
  linkCount: number;
  linkSource: Int32Array;
  linkTarget: Int32Array;
  /** Codes of LINK_TYPES: 0 text, 1 image, 2 redirect, 3 frame, 4 mention. */
  linkType: Uint8Array;
  linkNofollow: Uint8Array;
  linkHttps: Uint8Array;
  linkDeleted: Uint8Array;
  linkFirstDay: Int32Array;
  /** Last day the link existed: its deletion day when lost, else the build day. */
  linkEndDay: Int32Array;
}
