// The pixel size of a PNG, JPEG or WebP from its header, so a screenshot's answer says what it holds
// and a replay picture's size is known, without decoding the image.

export interface ImageSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's size from its IHDR chunk (always the first, right after the signature). */
function pngSize(image: Buffer): ImageSize | undefined {
  if (image.length < 24 || !image.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (image.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
}

/** A JPEG's size from its first start-of-frame segment (SOF0-SOF15 but DHT, JPG and DAC). */
function jpegSize(image: Buffer): ImageSize | undefined {
  if (image.length < 4 || image[0] !== 0xff || image[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 <= image.length) {
    if (image[at] !== 0xff) return undefined;
    const marker = image[at + 1] ?? 0;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = image.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: image.readUInt16BE(at + 5), width: image.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/** A WebP's size from its first chunk: VP8X (extended), VP8L (lossless) or VP8 (lossy). */
function webpSize(image: Buffer): ImageSize | undefined {
  if (image.length < 30 || image.toString('latin1', 0, 4) !== 'RIFF') return undefined;
  if (image.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const chunk = image.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + image.readUIntLE(24, 3), height: 1 + image.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = image.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ')
    return { width: image.readUInt16LE(26) & 0x3fff, height: image.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** The width and height of a PNG, JPEG or WebP, or undefined when the bytes are none of them. */
export function imageSize(image: Buffer): ImageSize | undefined {
  return pngSize(image) ?? jpegSize(image) ?? webpSize(image);
}
