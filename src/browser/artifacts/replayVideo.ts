// A session's replay pictures as a video, where ffmpeg is present (FFMPEG_PATH, or ffmpeg on PATH):
// each picture held until the next call's, within [MIN, MAX] so a fast step can be seen and a long
// pause does not make a long still, encoded as VP8 WebM, the format every browser plays. ffmpeg
// runs one encode at a time for the whole service, on one thread, within a deadline and an output
// cap, so one tenant's video cannot take the cores the sessions of every tenant share.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { constants as os, setPriority, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ServiceError } from '../../errors/serviceError.js';
import { ExportSlot } from './exportSlot.js';
import { imageSize } from './imageSize.js';

/** The shortest a picture shows: a step of a fast agent stays long enough to be seen. */
export const VIDEO_MIN_FRAME_MS = 500;
/** The longest a picture shows: an agent that paused for minutes makes a 3 s still, not minutes. */
export const VIDEO_MAX_FRAME_MS = 3_000;
/** Frames per second of the output; the pictures' times are rounded to its frames. */
export const VIDEO_FPS = 4;
/** An encode that runs longer is killed and answered as a TIMEOUT. */
export const VIDEO_ENCODE_TIMEOUT_MS = 120_000;
/** The largest video answered (ffmpeg's -fs stops there): a larger one is LIMIT_REACHED. */
export const MAX_VIDEO_BYTES = 64 * 1024 * 1024;
/** How an encode runs, beside the bounds of the video itself. */
const ENCODE = {
  /** When a second video is asked for while one encodes: try again after about this long. */
  busyRetryMs: 5_000,
  /** ffmpeg's error output kept for the answer: its first lines say what went wrong. */
  maxErrorChars: 2_000,
  /** The smallest side a VP8 frame may have. */
  minSide: 2,
} as const;

/** One picture of the video and when its call ended (ms since the epoch). */
export interface VideoFrame {
  picture: Buffer;
  at: number;
}

export interface ReplayVideo {
  webm: Buffer;
  frames: number;
  durationMs: number;
}

/** The ffmpeg binary: FFMPEG_PATH when set, else the first ffmpeg on PATH; undefined when none. */
export function findFfmpeg(configured: string | undefined): string | undefined {
  const runnable = (path: string): boolean => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (configured !== undefined && configured !== '') return runnable(configured) ? configured : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && runnable(join(dir, 'ffmpeg'))) return join(dir, 'ffmpeg');
  }
  return undefined;
}

/** How long each frame shows, in ms: until the next one, within the bounds; the last one MIN. */
export function frameDurations(frames: readonly VideoFrame[]): number[] {
  return frames.map((frame, i) => {
    const next = frames[i + 1];
    const gap = next === undefined ? VIDEO_MIN_FRAME_MS : next.at - frame.at;
    return Math.min(VIDEO_MAX_FRAME_MS, Math.max(VIDEO_MIN_FRAME_MS, gap));
  });
}

/** The least time between the end of one key's video encode and the start of its next. */
export const VIDEO_EXPORT_INTERVAL_MS = 2_000;
const encodes = new ExportSlot('replay video', ENCODE.busyRetryMs, VIDEO_EXPORT_INTERVAL_MS);

/** The frames as a WebM video, encoded by the ffmpeg at `ffmpeg`; `signal` ends it when the caller goes. */
export async function encodeReplayVideo(
  caller: string,
  ffmpeg: string,
  frames: readonly VideoFrame[],
  signal?: AbortSignal,
): Promise<ReplayVideo> {
  const size = frames.map((f) => imageSize(f.picture)).find((s) => s !== undefined);
  if (size === undefined)
    throw new ServiceError('ACTION_FAILED', 'No replay picture of the session could be read.');
  return encodes.run(caller, async () => {
    let dir: string | undefined;
    try {
      dir = await mkdtemp(join(tmpdir(), 'pwj-video-'));
      const durations = frameDurations(frames);
      const list: string[] = [];
      for (const [i, frame] of frames.entries()) {
        const name = `${String(i).padStart(5, '0')}.jpg`;
        await writeFile(join(dir, name), frame.picture);
        list.push(`file '${name}'`, `duration ${((durations[i] ?? VIDEO_MIN_FRAME_MS) / 1000).toFixed(3)}`);
      }
      // The concat demuxer takes the last duration only with the last file listed once more.
      list.push(list[list.length - 2] ?? '');
      await writeFile(join(dir, 'frames.txt'), `${list.join('\n')}\n`);
      // VP8 needs even sides; every picture is fitted into the first one's size, centred.
      const width = Math.max(ENCODE.minSide, size.width - (size.width % 2));
      const height = Math.max(ENCODE.minSide, size.height - (size.height % 2));
      const out = join(dir, 'out.webm');
      await run(
        ffmpeg,
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-nostdin',
          '-f',
          'concat',
          '-i',
          join(dir, 'frames.txt'),
          '-vf',
          `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2:color=white,format=yuv420p`,
          '-r',
          String(VIDEO_FPS),
          '-c:v',
          'libvpx',
          '-deadline',
          'realtime',
          '-cpu-used',
          '8',
          '-b:v',
          '1M',
          '-threads',
          '1',
          '-fs',
          String(MAX_VIDEO_BYTES),
          '-an',
          '-y',
          out,
        ],
        signal,
      );
      const webm = await readFile(out).catch((error: unknown) => {
        throw new ServiceError(
          'ACTION_FAILED',
          `ffmpeg ended without writing a video (${error instanceof Error ? error.message : String(error)}): is FFMPEG_PATH an ffmpeg?`,
        );
      });
      if (webm.length >= MAX_VIDEO_BYTES)
        throw new ServiceError(
          'LIMIT_REACHED',
          `The video reached ${MAX_VIDEO_BYTES} bytes and was cut: export the trace (replay.trace) instead.`,
          { limit: 'MAX_VIDEO_BYTES', max: MAX_VIDEO_BYTES },
        );
      return { webm, frames: frames.length, durationMs: durations.reduce((sum, d) => sum + d, 0) };
    } finally {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    }
  });
}

/**
 * Runs ffmpeg to its end within VIDEO_ENCODE_TIMEOUT_MS, killed when `signal` aborts (the caller
 * went); its error output is the error. It gets only PATH of the service's environment.
 */
function run(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new ServiceError('ACTION_FAILED', 'The caller went before the video was encoded.'));
      return;
    }
    const child = spawn(ffmpeg, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    // The lowest CPU priority: the sessions of every tenant come first.
    try {
      if (child.pid !== undefined) setPriority(child.pid, os.priority.PRIORITY_LOW);
    } catch (error) {
      // Only a child that already ended (ESRCH) has no priority to set; its 'close' says how it ended.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    let errors = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (errors.length < ENCODE.maxErrorChars) errors = (errors + d).slice(0, ENCODE.maxErrorChars);
    });
    let stopped: ServiceError | undefined;
    const stop = (why: ServiceError) => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () =>
        stop(
          new ServiceError('TIMEOUT', `Encoding the replay video ran past ${VIDEO_ENCODE_TIMEOUT_MS} ms.`, {
            timeoutMs: VIDEO_ENCODE_TIMEOUT_MS,
          }),
        ),
      VIDEO_ENCODE_TIMEOUT_MS,
    );
    const onAbort = () =>
      stop(new ServiceError('ACTION_FAILED', 'The caller went before the video was encoded.'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      settle();
      reject(new ServiceError('ACTION_FAILED', `ffmpeg could not be started: ${error.message}`));
    });
    // 'close', not 'exit': its error output has been read to the end by then.
    child.once('close', (code, sig) => {
      settle();
      if (stopped !== undefined) reject(stopped);
      else if (code === 0) resolve();
      else
        reject(
          new ServiceError(
            'ACTION_FAILED',
            `ffmpeg could not encode the video (it ended with ${code ?? sig}): ${errors.trim().slice(0, 500)}`,
          ),
        );
    });
  });
}
