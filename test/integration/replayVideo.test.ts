// replay.video: a closed session's replay pictures become a WebM video that a real Chromium plays,
// through the ffmpeg FFMPEG_PATH names. The path is a script this test writes, so one service sees
// each case: no file there (-32005, the trace named instead), an ffmpeg that fails (-32000 with its
// error) or writes nothing (-32000), a second video asked while one encodes (-32003 with retryAfterMs), and the real ffmpeg.
// A session without replay pictures is -32602, another key's is -32010.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayVideoResult } from '../../client/src/methods.generated.js';
import { findFfmpeg } from '../../src/browser/artifacts/replayVideo.js';
import { launchDriverBrowser } from '../helpers/driverBrowser.js';
import { exportCall } from '../helpers/exportCalls.js';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY, waitFor } from '../helpers/testService.js';

const OTHER_KEY = 'replay-video-other-key-0123456789';
const dir = join(tmpdir(), `replay-video-${process.pid}`);
/** What FFMPEG_PATH names: absent, then a script of the test's. */
const FFMPEG = join(dir, 'ffmpeg');
const suite = useServiceSuite({
  API_KEY: `${TEST_API_KEY},${OTHER_KEY}`,
  REPLAY_KEEP_MS: '120000',
  FFMPEG_PATH: FFMPEG,
});
/** The machine's own ffmpeg (.ci/run installs Debian's); the encoding cases need it. */
const realFfmpeg = findFfmpeg(undefined);
/** The scripts' wait for the test's go-ahead (a file); bounds a machine where it never comes. */
const GATE_TIMEOUT_MS = 30_000;

let browser: Browser;
beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  browser = await launchDriverBrowser();
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function script(body: string): void {
  writeFileSync(FFMPEG, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

/** A closed session of the fixture app with replay pictures after a goto, a fill and a click. */
async function recordedSession(): Promise<string> {
  const s = await suite.recordForm();
  await suite.service.call('session.close', { session_id: s });
  return s;
}

describe('replay.video', () => {
  it('without ffmpeg, or with one that fails, says so; no pictures and another key are refused', async () => {
    const s = await recordedSession();
    rmSync(FFMPEG, { force: true });
    const missing = await exportCall(suite.service, 'replay.video', { session_id: s });
    expect(missing.error?.code).toBe(-32005);
    expect(missing.error?.message).toContain('FFMPEG_PATH');
    expect(missing.error?.message).toContain('replay.trace');
    expect(missing.error?.data).toMatchObject({ missing: 'ffmpeg' });

    script("echo 'Unknown encoder libvpx' >&2\nexit 1");
    const failed = await exportCall(suite.service, 'replay.video', { session_id: s });
    expect(failed.error?.code).toBe(-32000);
    expect(failed.error?.message).toContain('Unknown encoder libvpx');

    // A program that ends well without writing the video (FFMPEG_PATH naming something else).
    script('exit 0');
    const silent = await exportCall(suite.service, 'replay.video', { session_id: s });
    expect(silent.error?.code).toBe(-32000);
    expect(silent.error?.message).toContain('without writing a video');

    const plain = await suite.open('/form');
    await suite.service.call('page.click', { session_id: plain, selector: '#greet' });
    const none = await exportCall(suite.service, 'replay.video', { session_id: plain });
    expect(none.error?.code).toBe(-32602);
    expect(none.error?.message).toContain('replay: true');
    const other = await suite.service.post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'replay.video', params: { session_id: s } }),
      { 'x-api-key': OTHER_KEY },
    );
    expect((other.body as { error?: { code: number } }).error?.code).toBe(-32010);
  });

  it.skipIf(realFfmpeg === undefined)(
    'encodes the pictures as a WebM video a browser plays; one encode at a time',
    async () => {
      const s = await recordedSession();
      // An ffmpeg that waits for the test's go-ahead: the second call comes while the first encodes.
      const started = join(dir, 'started');
      const go = join(dir, 'go');
      rmSync(started, { force: true });
      rmSync(go, { force: true });
      script(
        `touch '${started}'\nn=0\nwhile [ ! -e '${go}' ] && [ $n -lt ${GATE_TIMEOUT_MS / 100} ]; do sleep 0.1; n=$((n+1)); done\nexec '${realFfmpeg}' "$@"`,
      );
      const first = exportCall(suite.service, 'replay.video', { session_id: s });
      await waitFor(() => Promise.resolve(existsSync(started)), GATE_TIMEOUT_MS, 'ffmpeg to start');
      const busy = await suite.service.rpc('replay.video', { session_id: s });
      expect(busy.error?.code).toBe(-32003);
      expect(busy.error?.data).toMatchObject({ retryAfterMs: expect.any(Number) as number });
      writeFileSync(go, '');
      const reply = await first;
      expect(reply.error).toBeUndefined();
      const video = reply.result as unknown as ReplayVideoResult;
      expect(video.filename).toBe(`session-${s}.webm`);
      expect(video.mime).toBe('video/webm');
      expect(video.frames).toBe(3);
      // Each picture shows at least 500 ms.
      expect(video.durationMs).toBeGreaterThanOrEqual(1500);
      const webm = Buffer.from(video.base64, 'base64');
      expect(webm.length).toBe(video.bytes);
      // The EBML header of a Matroska / WebM file.
      expect(webm.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
      const file = join(dir, video.filename);
      writeFileSync(file, webm);
      const probe = execFileSync(join(realFfmpeg ?? '', '..', 'ffprobe'), [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_name,width,height',
        '-of',
        'csv=p=0',
        file,
      ]).toString();
      expect(probe.trim()).toMatch(/^vp8,\d+,\d+$/);

      // A real browser plays it: its metadata loads and it has a duration.
      const page = await browser.newPage();
      try {
        await page.setContent('<video id="v" muted></video>');
        const played = await page.evaluate(async (src) => {
          const v = document.getElementById('v') as HTMLVideoElement;
          v.src = src;
          await new Promise((resolve, reject) => {
            v.onloadeddata = resolve;
            v.onerror = () => reject(new Error(`video error ${v.error?.code ?? '?'}`));
          });
          return { width: v.videoWidth, height: v.videoHeight };
        }, `data:video/webm;base64,${video.base64}`);
        expect(played.width).toBeGreaterThan(100);
        expect(played.height).toBeGreaterThan(100);
      } finally {
        await page.close();
      }
    },
  );
});
