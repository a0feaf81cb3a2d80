// screenshot of issue 11: an element (selector or ref), a clip, and downscaling for vision models,
// each checked by the image's own header (PNG IHDR, JPEG SOF) against the box it should show; and
// the refusals: fullPage with an element or a clip, a clip off the viewport, an image over
// MAX_SCREENSHOT_BYTES.
import { describe, expect, it } from 'vitest';
import { imageSize } from '../../src/browser/artifacts/imageSize.js';
import {
  DOWNSCALE_LONG_SIDE_PX,
  MAX_SCREENSHOT_SIDE_PX,
  MIN_SCREENSHOT_SIDE_PX,
} from '../../src/methods/page/screenshot.js';
import { bindSession, type BoundSession } from '../helpers/boundSession.js';
import { useServiceSuite } from '../helpers/suite.js';

/** Small enough that a viewport of noise is over it, large enough for the other shots of the suite. */
const SCREENSHOT_CAP_BYTES = 1_000_000;
const suite = useServiceSuite({ MAX_SCREENSHOT_BYTES: String(SCREENSHOT_CAP_BYTES) });

interface Shot {
  base64: string;
  mime: string;
  bytes: number;
  width: number;
  height: number;
  scale: number;
}

async function open(path: string): Promise<BoundSession> {
  return bindSession(suite.service, await suite.open(path));
}

/** The shot, checked to be what it says: a PNG or JPEG of width × height, of `bytes` bytes. */
async function shoot(s: BoundSession, params: Record<string, unknown> = {}): Promise<Shot> {
  const shot = await s.call<Shot>('screenshot', params);
  const image = Buffer.from(shot.base64, 'base64');
  expect(image.length).toBe(shot.bytes);
  const header =
    shot.mime === 'image/png'
      ? [0x89, 0x50, 0x4e, 0x47]
      : shot.mime === 'image/webp'
        ? [...Buffer.from('RIFF')]
        : [0xff, 0xd8, 0xff];
  expect([...image.subarray(0, header.length)]).toEqual(header);
  expect(imageSize(image)).toEqual({ width: shot.width, height: shot.height });
  return shot;
}

const size = (shot: Shot) => ({ width: shot.width, height: shot.height });

describe('screenshot of an element or a clip', () => {
  it('captures an element by selector and by ref, at the size of its box', async () => {
    const s = await open('/shots');
    const bySelector = await shoot(s, { selector: '#chart' });
    expect(size(bySelector)).toEqual({ width: 300, height: 150 });
    expect(bySelector.scale).toBe(1);
    const byRef = await shoot(s, { ref: await s.ref(/img "Chart"/) });
    expect(size(byRef)).toEqual({ width: 300, height: 150 });
    expect(byRef.base64).toBe(bySelector.base64);
    // Wider than the viewport: the whole element, not the part in view.
    expect(size(await shoot(s, { selector: '#banner' }))).toEqual({ width: 3000, height: 100 });
    await s.close();
  });

  it('captures a clip of the viewport, the same pixels as the element it covers', async () => {
    const s = await open('/shots');
    const clip = await shoot(s, { clip: { x: 40, y: 60, width: 300, height: 150 } });
    expect(size(clip)).toEqual({ width: 300, height: 150 });
    expect(clip.base64).toBe((await shoot(s, { selector: '#chart' })).base64);
    const jpeg = await shoot(s, {
      clip: { x: 0, y: 0, width: 64, height: 32 },
      mime: 'image/jpeg',
      quality: 50,
    });
    expect(size(jpeg)).toEqual({ width: 64, height: 32 });
    await s.close();
  });

  it('refuses fullPage with a clip or an element, an element with a clip, and a clip off the viewport', async () => {
    const s = await open('/shots');
    const clip = { x: 0, y: 0, width: 100, height: 100 };
    const full = await s.fails('screenshot', { fullPage: true, clip }, -32602);
    expect(full.message).toContain('fullPage captures the whole page and goes with neither a clip');
    const element = await s.fails('screenshot', { fullPage: true, selector: '#chart' }, -32602);
    expect(element.message).toContain('an element (selector or ref)');
    await s.fails('screenshot', { fullPage: true, ref: 'e2' }, -32602);
    const both = await s.fails('screenshot', { selector: '#chart', clip }, -32602);
    expect(both.message).toContain('not both');
    await s.fails('screenshot', { selector: '#chart', ref: 'e2' }, -32602);
    const off = await s.fails('screenshot', { clip: { x: 1200, y: 0, width: 100, height: 100 } }, -32602);
    expect(off.message).toContain('outside the viewport (1280×800)');
    await s.fails('screenshot', { clip: { x: 0, y: 0, width: 0, height: 10 } }, -32602);
    await s.fails('screenshot', { clip: { x: 0, y: 0, width: 10 } }, -32602);
    await s.fails('screenshot', { selector: '#nothing', timeout: 300 }, -32001);
    await s.close();
  });
});

describe('screenshot downscaled for vision models', () => {
  it('downscale: true keeps the long side of a full page within the limit, aspect kept', async () => {
    const s = await open('/shots');
    const full = await shoot(s, { fullPage: true });
    expect(size(full)).toEqual({ width: 3000, height: 5000 });
    const small = await shoot(s, { fullPage: true, downscale: true });
    expect(Math.max(small.width, small.height)).toBe(DOWNSCALE_LONG_SIDE_PX);
    expect(Math.abs(small.width / small.height - 3000 / 5000)).toBeLessThan(0.002);
    expect(small.scale).toBeCloseTo(DOWNSCALE_LONG_SIDE_PX / 5000, 6);
    expect(small.bytes).toBeLessThan(full.bytes);
    await s.close();
  });

  it('maxWidth and maxHeight scale the viewport, an element and a JPEG; the smallest limit wins', async () => {
    const s = await open('/shots');
    const half = await shoot(s, { maxWidth: 640 });
    expect(size(half)).toEqual({ width: 640, height: 400 });
    expect(half.scale).toBe(0.5);
    expect(size(await shoot(s, { maxWidth: 1000, maxHeight: 200 }))).toEqual({ width: 320, height: 200 });
    expect(size(await shoot(s, { selector: '#chart', maxWidth: 150 }))).toEqual({ width: 150, height: 75 });
    const banner = await shoot(s, { selector: '#banner', downscale: true });
    expect(size(banner)).toEqual({ width: DOWNSCALE_LONG_SIDE_PX, height: 52 });
    const jpeg = await shoot(s, { mime: 'image/jpeg', quality: 60, maxHeight: 200 });
    expect(size(jpeg)).toEqual({ width: 320, height: 200 });
    await s.close();
  });

  it('never scales up: a capture within the limits is taken as it is', async () => {
    const s = await open('/shots');
    const chart = await shoot(s, { selector: '#chart', downscale: true, maxWidth: 1000 });
    expect(size(chart)).toEqual({ width: 300, height: 150 });
    expect(chart.scale).toBe(1);
    expect(chart.base64).toBe((await shoot(s, { selector: '#chart' })).base64);
    await s.close();
  });

  it('refuses limits out of bounds', async () => {
    const s = await open('/shots');
    await s.fails('screenshot', { maxWidth: MIN_SCREENSHOT_SIDE_PX - 1 }, -32602);
    await s.fails('screenshot', { maxHeight: MAX_SCREENSHOT_SIDE_PX + 1 }, -32602);
    await s.fails('screenshot', { downscale: 'yes' }, -32602);
    await s.close();
  });
});

describe('WebP and device pixels', () => {
  it('image/webp of the viewport, an element and downscaled, lossless or with a quality, smaller than the PNG', async () => {
    const s = await open('/shots');
    const png = await shoot(s);
    const webp = await shoot(s, { mime: 'image/webp' });
    expect(size(webp)).toEqual(size(png));
    expect(webp.bytes).toBeLessThan(png.bytes);
    expect(size(await shoot(s, { mime: 'image/webp', selector: '#chart' }))).toEqual({
      width: 300,
      height: 150,
    });
    const lossy = await shoot(s, { mime: 'image/webp', quality: 30, maxWidth: 640 });
    expect(lossy).toMatchObject({ width: 640, scale: 0.5 });
    await s.fails('screenshot', { mime: 'image/png', quality: 50 }, -32602);
    await s.fails('screenshot', { mime: 'image/gif' }, -32602);
    await s.close();
  });

  it('scale device gives a DPR 2 session twice the pixels each way; css (the default) one per CSS pixel', async () => {
    const { session_id } = await suite.service.call<{ session_id: string }>('session.create', {
      device: 'Desktop Chrome HiDPI',
    });
    const s = bindSession(suite.service, session_id);
    await s.call('page.goto', { url: `${suite.fixture.url}/shots` });
    const ratio = await s.evaluate<number>('devicePixelRatio');
    expect(ratio).toBeGreaterThan(1);
    const css = await shoot(s, { selector: '#chart' });
    expect(css).toMatchObject({ width: 300, height: 150, scale: 1 });
    for (const mime of ['image/png', 'image/webp']) {
      const device = await shoot(s, { selector: '#chart', scale: 'device', mime });
      expect(device).toMatchObject({
        width: Math.round(300 * ratio),
        height: Math.round(150 * ratio),
        scale: ratio,
      });
    }
    // A limit counts image pixels: the device capture shrinks to it.
    const limited = await shoot(s, { selector: '#chart', scale: 'device', maxWidth: 300 });
    expect(limited).toMatchObject({ width: 300, scale: 1 });
    // The browser's own captures (webp, downscaled) leave the session's device pixel ratio as it was.
    expect(await s.evaluate<number>('devicePixelRatio')).toBe(ratio);
    await s.fails('screenshot', { scale: 'retina' }, -32602);
    await s.close();
  });
});

describe('MAX_SCREENSHOT_BYTES', () => {
  it('refuses an image over the cap, and the same view downscaled fits', async () => {
    const s = await open('/noise');
    const over = await s.fails('screenshot', {}, -32003);
    expect(over.data).toMatchObject({ limit: SCREENSHOT_CAP_BYTES });
    expect(over.message).toContain('downscale');
    await s.fails('screenshot', { selector: '#noise' }, -32003);
    const small = await shoot(s, { maxWidth: 400 });
    expect(small.width).toBe(400);
    expect(small.bytes).toBeLessThanOrEqual(SCREENSHOT_CAP_BYTES);
    await s.close();
  });
});
