// How long each replay picture shows in the video, and where ffmpeg is looked for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findFfmpeg,
  frameDurations,
  VIDEO_MAX_FRAME_MS,
  VIDEO_MIN_FRAME_MS,
} from '../../src/browser/artifacts/replayVideo.js';

const frame = (at: number) => ({ picture: Buffer.alloc(0), at });

describe('frameDurations', () => {
  it('holds each picture until the next, within the bounds; the last one the least', () => {
    expect(frameDurations([frame(0), frame(1_000), frame(1_100), frame(60_000)])).toEqual([
      1_000,
      VIDEO_MIN_FRAME_MS,
      VIDEO_MAX_FRAME_MS,
      VIDEO_MIN_FRAME_MS,
    ]);
    expect(frameDurations([])).toEqual([]);
  });
});

describe('findFfmpeg', () => {
  it('takes FFMPEG_PATH only when it is runnable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffmpeg-find-'));
    try {
      const plain = join(dir, 'not-runnable');
      writeFileSync(plain, 'x', { mode: 0o644 });
      const runnable = join(dir, 'ffmpeg');
      writeFileSync(runnable, '#!/bin/sh\n', { mode: 0o755 });
      expect(findFfmpeg(join(dir, 'absent'))).toBeUndefined();
      expect(findFfmpeg(plain)).toBeUndefined();
      expect(findFfmpeg(runnable)).toBe(runnable);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
