// The pixel size of a PNG or JPEG from its header.
import { describe, expect, it } from 'vitest';
import { imageSize } from '../../src/browser/artifacts/imageSize.js';
import { jpegHeader } from '../helpers/imageHeaders.js';

/** A PNG signature and IHDR chunk of width × height (no image data: only the header is read). */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

describe('imageSize', () => {
  it('reads a PNG IHDR and a JPEG start of frame', () => {
    expect(imageSize(pngHeader(1280, 800))).toEqual({ width: 1280, height: 800 });
    expect(imageSize(jpegHeader(641, 257))).toEqual({ width: 641, height: 257 });
  });

  it('answers undefined for other bytes or a truncated header', () => {
    expect(imageSize(Buffer.from('GIF89a........................'))).toBeUndefined();
    expect(imageSize(pngHeader(10, 10).subarray(0, 20))).toBeUndefined();
    expect(imageSize(jpegHeader(10, 10).subarray(0, 12))).toBeUndefined();
    expect(imageSize(Buffer.alloc(0))).toBeUndefined();
  });
});
