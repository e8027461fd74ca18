/**
 * PNG encoding of resvg's RGBA pixels.
 *
 * resvg's own `asPng()` compresses hard (adaptive filters, high deflate level) and took
 * two to four times as long as rasterising a results page; these pictures are flat UI
 * colours that deflate well unfiltered at a low level, so encoding here with Node's
 * zlib is several times faster for a file of about the same size.
 * Format: PNG specification (W3C, 2nd edition), §5 datastream, §11 IHDR/IDAT/IEND.
 */
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes 8-bit RGBA pixels (row-major, 4 bytes per pixel) as a PNG. */
export function encodePng(rgba: Buffer, width: number, height: number): Buffer {
  const rowBytes = width * 4;
  if (rgba.length !== rowBytes * height) throw new Error(`expected ${rowBytes * height} bytes of RGBA, got ${rgba.length}`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: truecolour with alpha
  // Bytes 10–12 stay 0: deflate compression, adaptive filtering method, no interlace.
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (rowBytes + 1) + 1, y * rowBytes, (y + 1) * rowBytes); // filter byte 0: None
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 3 })), chunk('IEND', Buffer.alloc(0))]);
}
