/** Rasterises the pictures' SVG to PNG with resvg. */
import { Resvg } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILES } from './fontMetrics.js';
import { encodePng } from './pngEncoder.js';

export function rasterizeSvg(svg: string, background = '#ffffff'): Buffer {
  const resvg = new Resvg(svg, {
    background,
    // Text arrives as glyph outlines of the bundled font; should any `<text>` slip in, it
    // is set in that same font and never in one the machine happens to have installed.
    font: {
      loadSystemFonts: false,
      fontFiles: [...FONT_FILES],
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY,
    },
  });
  const image = resvg.render();
  return encodePng(image.pixels, image.width, image.height);
}
