// A zip archive written in memory: what a Playwright trace is (trace.trace, trace.network and the
// resources/ it names). Entries are deflated on zlib's thread pool, off the event loop (pictures
// already compressed are stored), with the CRC-32 of zlib; no ZIP64, so an archive stays under
// 4 GiB and 65535 entries (the callers' caps keep it far below).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';

const deflate = promisify(deflateRaw);
/** Bytes checksummed between two turns of the event loop. */
const CRC_SLICE_BYTES = 1024 * 1024;

/** The CRC-32 of `data`, a slice a turn, so a large entry does not hold the event loop. */
async function crcOf(data: Buffer): Promise<number> {
  let crc = 0;
  for (let at = 0; at < data.length; at += CRC_SLICE_BYTES) {
    if (at > 0) await nextTurn();
    crc = crc32(data.subarray(at, at + CRC_SLICE_BYTES), crc);
  }
  return crc;
}

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** Store as is: data already compressed (JPEG, PNG) gains nothing from deflate. */
  stored?: boolean;
}

/** Bytes past which a zip needs ZIP64, which this writer does not write. */
const ZIP32_LIMIT = 0xffff_ffff;
/** Entries past which a zip needs ZIP64. */
const MAX_ZIP32_ENTRIES = 0xffff;
/** DOS date of 1980-01-01 00:00, the earliest a zip can hold: entries carry no date of their own. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** The archive of `entries`, in their order. */
export async function zipOf(entries: readonly ZipEntry[]): Promise<Buffer> {
  if (entries.length >= MAX_ZIP32_ENTRIES) throw new RangeError('a zip of over 65535 entries needs ZIP64');
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const body = entry.stored === true ? entry.data : await deflate(entry.data);
    const fields = {
      method: entry.stored === true ? 0 : 8,
      crc: await crcOf(entry.data),
      compressed: body.length,
      size: entry.data.length,
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(fields.method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(fields.crc, 14);
    local.writeUInt32LE(fields.compressed, 18);
    local.writeUInt32LE(fields.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // extra
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4); // made by: 2.0
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(fields.method, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(fields.crc, 16);
    header.writeUInt32LE(fields.compressed, 20);
    header.writeUInt32LE(fields.size, 24);
    header.writeUInt16LE(name.length, 28);
    // extra, comment, disk, internal and external attributes stay 0
    header.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    central.push(header, name);
    offset += local.length + name.length + body.length;
    if (offset >= ZIP32_LIMIT) throw new RangeError('a zip over 4 GiB needs ZIP64');
  }
  const centralBytes = central.reduce((sum, b) => sum + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}
