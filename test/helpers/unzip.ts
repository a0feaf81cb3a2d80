// Reads a zip the service wrote (replay.trace) back into its entries, by their local headers: what
// the tests check the archive against, without an unzip tool on the machine.
import { inflateRawSync } from 'node:zlib';
import { expect } from 'vitest';

/** The entries of a zip, read by their local headers (what the writer puts first). */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let at = 0;
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const method = zip.readUInt16LE(at + 8);
    const compressed = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const name = zip.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const body = zip.subarray(at + 30 + nameLength, at + 30 + nameLength + compressed);
    files.set(name, method === 8 ? inflateRawSync(body) : Buffer.from(body));
    at += 30 + nameLength + compressed;
  }
  // The central directory's end record counts them all.
  expect(zip.readUInt32LE(zip.length - 22)).toBe(0x06054b50);
  expect(zip.readUInt16LE(zip.length - 12)).toBe(files.size);
  return files;
}
