// Room browser/artifacts/: files in and out of a session (downloads, uploads, traces, PDF, screencast); imports engine/, events/.
// The one temporary directory of a session: its downloads and its artifacts (traces) are written
// there and nowhere else of the service's, and it is removed when the session ends (the registry
// disposes of it on every way a session ends). Created on first use, private to the service's user.
import { chmod, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '../../errors/serviceError.js';

/** Records a line of the service's own in the session's console log. */
type Note = (type: string, text: string) => void;

export class SessionFiles {
  private dir: Promise<string> | undefined;
  private disposed = false;

  constructor(private readonly note: Note) {}

  /** The directory once created; undefined until a file was first written. */
  get created(): Promise<string> | undefined {
    return this.dir;
  }

  /** Whether the session ended: nothing may be written for it any more. */
  get ended(): boolean {
    return this.disposed;
  }

  /** The directory, created on first use with mode 0700; refused once the session ended. */
  directory(): Promise<string> {
    if (this.disposed) return Promise.reject(new Error('the session ended'));
    this.dir ??= mkdtemp(join(tmpdir(), 'pw-rpc-session-')).then(
      async (dir) => {
        await chmod(dir, 0o700);
        return dir;
      },
      (error: unknown) => {
        // The next writer tries again rather than inheriting this failure.
        this.dir = undefined;
        throw error;
      },
    );
    return this.dir;
  }

  /** The path of a file of the session (a plain name: d1, t1.zip …). */
  async path(name: string): Promise<string> {
    return join(await this.directory(), name);
  }

  /** A warning of the service's own in the session's console log. */
  warn(text: string): void {
    this.note('warning', text);
  }

  /** Removes the directory again when the session ended meanwhile (saveAs recreates a directory it writes to). */
  async removeIfEnded(): Promise<void> {
    if (this.disposed) await this.removeDirectory();
  }

  /** Deletes the directory with every file in it; later writers find the session ended. Never throws. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.removeDirectory();
  }

  private async removeDirectory(): Promise<void> {
    const dir = this.dir;
    if (dir === undefined) return;
    try {
      await rm(await dir, { recursive: true, force: true });
    } catch (error) {
      this.note('warning', `could not delete the session's files: ${String(error)}`);
    }
  }
}

/** A slice of a kept file: its bytes, and the whole file's size. */
export interface FileSlice {
  data: Buffer;
  size: number;
}

/**
 * The entry a session keeps under `id` (a download or a trace), or INVALID_PARAMS on the param
 * `<what>_id` with `message`, which tells the caller where to find the ids there are.
 */
export function keptEntry<T>(
  entries: ReadonlyMap<string, T>,
  id: string,
  what: 'download' | 'trace',
  message: string,
): T {
  const entry = entries.get(id);
  if (entry === undefined)
    throw new ServiceError('INVALID_PARAMS', message, {
      errors: [{ path: `/${what}_id`, message: `unknown ${what}`, keyword: 'enum', params: {} }],
    });
  return entry;
}

/**
 * Reads up to maxBytes of a kept file of `size` bytes from offset: downloads.get and trace.get read
 * their files in slices with it. An offset past the end is the caller's to fix.
 */
export async function readFileSlice(
  path: string,
  size: number,
  offset: number,
  maxBytes: number,
  id: string,
): Promise<Buffer> {
  if (offset > size)
    throw new ServiceError(
      'INVALID_PARAMS',
      `offset ${offset} is past the end of ${id} (${size} bytes): read from an offset of 0 to ${size}, such as the nextOffset of the previous slice.`,
      { errors: [{ path: '/offset', message: `must be at most ${size}`, keyword: 'maximum', params: {} }] },
    );
  const length = Math.min(maxBytes, size - offset);
  const file = await open(path, 'r');
  try {
    const data = Buffer.alloc(length);
    const { bytesRead } = await file.read(data, 0, length, offset);
    return data.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
