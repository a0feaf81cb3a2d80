// screenshot: the viewport, the full page, an element (selector or ref) or a clip of the viewport,
// optionally downscaled for vision models. Downscaling is Chromium's own: CDP Page.captureScreenshot
// renders the region at a smaller page scale (sharp text, no resampling, no image library), which
// also costs less time than a full-size capture.
import { Type } from '@sinclair/typebox';
import type { Locator, PageScreenshotOptions } from 'playwright-core';
import type { Session } from '../../browser/session/session.js';
import { DeadlineError, withDeadline } from '../../errors/deadline.js';
import { ServiceError } from '../../errors/serviceError.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { imageSize } from '../../browser/artifacts/imageSize.js';
import {
  MAX_VIEWPORT_HEIGHT_PX,
  MAX_VIEWPORT_WIDTH_PX,
  SCREENSHOT_TIMEOUT_MS,
  Target,
  timeoutParam,
} from '../params.js';

/**
 * downscale: true keeps the long side within this: vision models (Claude's guidance) resize larger
 * images to it anyway, so more pixels only cost bytes and tokens.
 */
export const DOWNSCALE_LONG_SIDE_PX = 1568;
/** maxWidth and maxHeight bounds: below this an image shows nothing; above, Chromium's largest texture. */
export const MIN_SCREENSHOT_SIDE_PX = 16;
export const MAX_SCREENSHOT_SIDE_PX = 16_384;

const METHOD = 'screenshot';

function refuse(path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for ${METHOD}: ${message}`, {
    method: METHOD,
    errors: [{ path, message, keyword: 'dependencies', params: {} }],
  });
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const side = (what: string) =>
  Type.Optional(
    Type.Integer({
      minimum: MIN_SCREENSHOT_SIDE_PX,
      maximum: MAX_SCREENSHOT_SIDE_PX,
      description: `Largest ${what} of the image in pixels: a larger capture is scaled down, aspect kept (never up).`,
    }),
  );

/** What to capture, in the page's CSS pixels, and whether it reaches outside the viewport. */
interface Region {
  rect: Rect;
  beyondViewport: boolean;
}

/**
 * The region a capture covers, in document CSS pixels, measured by the browser (CDP layout metrics,
 * not the page's scripts, which could lie about scroll offsets).
 */
async function measure(
  session: Session,
  send: (method: 'Page.getLayoutMetrics') => Promise<{
    cssVisualViewport: { pageX: number; pageY: number; clientWidth: number; clientHeight: number };
    cssContentSize: { width: number; height: number };
  }>,
  shape: { locator?: Locator; clip?: Rect; fullPage: boolean },
  timeout: number,
): Promise<Region> {
  let box: Rect | undefined;
  if (shape.locator !== undefined) {
    await shape.locator.scrollIntoViewIfNeeded({ timeout });
    box = (await shape.locator.boundingBox({ timeout })) ?? undefined;
    if (box === undefined)
      throw new ServiceError('ACTION_FAILED', 'The element has no box to capture: it is not displayed.', {});
  }
  const metrics = await send('Page.getLayoutMetrics');
  const view = metrics.cssVisualViewport;
  const size = session.page.viewportSize() ?? { width: view.clientWidth, height: view.clientHeight };
  if (shape.fullPage) {
    const { width, height } = metrics.cssContentSize;
    return { rect: { x: 0, y: 0, width, height }, beyondViewport: true };
  }
  const local = box ?? shape.clip ?? { x: 0, y: 0, ...size };
  const beyondViewport =
    local.x < 0 || local.y < 0 || local.x + local.width > size.width || local.y + local.height > size.height;
  return { rect: { ...local, x: local.x + view.pageX, y: local.y + view.pageY }, beyondViewport };
}

interface Shot {
  buffer: Buffer;
  /** Image pixels per CSS pixel. */
  scale: number;
}

/**
 * The capture taken by the browser itself, at `pixelRatio` image pixels per CSS pixel and shrunk to
 * fit the limits (image pixels); undefined when Playwright's screenshot can take it (the format is
 * one it writes and nothing needs shrinking: it also stops animations and hides the caret).
 */
async function browserShot(
  session: Session,
  shape: { locator?: Locator; clip?: Rect; fullPage: boolean },
  image: {
    limits: { width: number; height: number };
    format: 'png' | 'jpeg' | 'webp';
    quality: number | undefined;
  },
  pixelRatio: number,
  timeout: number,
): Promise<Shot | undefined> {
  const { limits, format, quality } = image;
  const cdp = await session.context.newCDPSession(session.page);
  let captured = false;
  try {
    const region = await measure(session, (m) => cdp.send(m), shape, timeout);
    const { rect } = region;
    const shrink = Math.min(
      1,
      limits.width / (rect.width * pixelRatio),
      limits.height / (rect.height * pixelRatio),
    );
    if (!(shrink < 1) && format !== 'webp') return undefined;
    // clip.scale is image pixels per CSS pixel, whatever the device pixel ratio.
    const scale = pixelRatio * shrink;
    captured = true;
    const { data } = await cdp.send('Page.captureScreenshot', {
      format,
      quality,
      clip: { ...rect, scale },
      captureBeyondViewport: region.beyondViewport,
    });
    return { buffer: Buffer.from(data, 'base64'), scale };
  } finally {
    // The session ends with the page when it is already gone; nothing is left to release then.
    await cdp.detach().catch(() => undefined);
    // A capture with a clip ends by clearing the page's device metrics, the ones Playwright set for
    // the session on its own CDP session (device pixel ratio, mobile viewport): the page would show
    // 1× pixels from then on. A screenshot of Playwright's own sets them again; one pixel of it costs
    // least.
    if (captured) await session.page.screenshot({ clip: RESTORE_CLIP, timeout, animations: 'allow' });
  }
}

/** The region of the screenshot that restores the page's device metrics after a capture of ours. */
const RESTORE_CLIP = { x: 0, y: 0, width: 1, height: 1 };

/** The browser's image format of each mime type. */
const FORMATS = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' } as const;

/** Playwright's screenshot of the element, or of the page (its viewport, a clip, or all of it). */
function playwrightShot(
  session: Session,
  shape: { locator?: Locator | undefined; clip?: Rect | undefined; fullPage: boolean },
  options: PageScreenshotOptions,
): Promise<Buffer> {
  return shape.locator !== undefined
    ? shape.locator.screenshot(options)
    : session.page.screenshot({ ...options, fullPage: shape.fullPage, clip: shape.clip });
}

/** The active page's device pixel ratio, as the browser emulates it for the session. */
async function devicePixelRatio(session: Session, timeout: number): Promise<number> {
  const ratio = await withDeadline(
    session.page.evaluate(() => window.devicePixelRatio),
    timeout,
    () => new DeadlineError('reading the device pixel ratio', timeout, ''),
  );
  // A page may redefine devicePixelRatio: only a sane number is taken.
  return typeof ratio === 'number' && ratio >= 0.5 && ratio <= 4 ? ratio : 1;
}

export const screenshot = defineSessionMethod({
  name: 'screenshot',
  summary:
    'Take a screenshot of the viewport, the full page, an element (selector or ref) or a clip, as base64, optionally downscaled for vision models',
  description: `One image pixel per CSS pixel unless downscaled (scale device: the device pixel ratio's). maxWidth, maxHeight and downscale (the long side within ${DOWNSCALE_LONG_SIDE_PX} px) shrink the capture in the browser, aspect kept; scale in the answer maps image pixels back to CSS pixels. fullPage goes with neither an element nor a clip; an element and a clip do not go together.`,
  params: {
    ...Target,
    clip: Type.Optional(
      Type.Object(
        {
          x: Type.Number({
            minimum: 0,
            maximum: MAX_VIEWPORT_WIDTH_PX,
            description: 'Left edge, CSS pixels.',
          }),
          y: Type.Number({
            minimum: 0,
            maximum: MAX_VIEWPORT_HEIGHT_PX,
            description: 'Top edge, CSS pixels.',
          }),
          width: Type.Number({
            exclusiveMinimum: 0,
            maximum: MAX_VIEWPORT_WIDTH_PX,
            description: 'Width, CSS pixels.',
          }),
          height: Type.Number({
            exclusiveMinimum: 0,
            maximum: MAX_VIEWPORT_HEIGHT_PX,
            description: 'Height, CSS pixels.',
          }),
        },
        {
          additionalProperties: false,
          description:
            'A rectangle of the viewport (CSS pixels from its top left corner) to capture; it must lie within the viewport.',
        },
      ),
    ),
    fullPage: Type.Boolean({
      default: false,
      description: 'Capture the whole scrollable page (default false: the viewport).',
    }),
    mime: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg'), Type.Literal('image/webp')], {
      default: 'image/png',
      description: 'Image format (default image/png). image/webp is the smallest for the same picture.',
    }),
    quality: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description:
          'Quality of a lossy image: only with image/jpeg and image/webp (webp without it is lossless).',
      }),
    ),
    scale: Type.Union([Type.Literal('css'), Type.Literal('device')], {
      default: 'css',
      description:
        "css (default): one image pixel per CSS pixel; device: the session's device pixel ratio (a DPR 2 session gives twice the pixels each way).",
    }),
    maxWidth: side('width'),
    maxHeight: side('height'),
    downscale: Type.Boolean({
      default: false,
      description: `Keep the long side within ${DOWNSCALE_LONG_SIDE_PX} px, the size vision models work at (default false). Goes with maxWidth and maxHeight: the smallest limit wins.`,
    }),
    timeout: timeoutParam(SCREENSHOT_TIMEOUT_MS, 'the screenshot'),
  },
  result: Type.Object({
    base64: Type.String({ description: 'The image, base64-encoded.' }),
    mime: Type.String(),
    bytes: Type.Integer({ description: 'Size of the decoded image.' }),
    width: Type.Integer({ description: 'Width of the image in pixels.' }),
    height: Type.Integer({ description: 'Height of the image in pixels.' }),
    scale: Type.Number({
      description:
        'Image pixels per CSS pixel: 1 (scale css) or the device pixel ratio (scale device), less when downscaled. Divide an image coordinate by it for CSS pixels of the captured region.',
    }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'STALE_REF', 'LIMIT_REACHED', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session, services }) {
    const format = FORMATS[params.mime];
    if (params.quality !== undefined && format === 'png')
      throw refuse('/quality', 'quality applies only to mime image/jpeg and image/webp');
    const element = params.selector !== undefined || params.ref !== undefined;
    const { clip, fullPage, timeout } = params;
    if (fullPage && (element || clip !== undefined))
      throw refuse(
        '/fullPage',
        `fullPage captures the whole page and goes with neither ${element ? 'an element (selector or ref)' : 'a clip'}: drop fullPage, or the ${element ? 'element' : 'clip'}`,
      );
    if (element && clip !== undefined)
      throw refuse('/clip', 'give an element (selector or ref) or a clip, not both');
    if (clip !== undefined) {
      const viewport = session.page.viewportSize();
      if (
        viewport !== null &&
        (clip.x + clip.width > viewport.width || clip.y + clip.height > viewport.height)
      )
        throw refuse(
          '/clip',
          `the clip (${clip.x},${clip.y} ${clip.width}×${clip.height}) reaches outside the viewport (${viewport.width}×${viewport.height}): clip within it, or scroll first`,
        );
    }
    const locator = element ? await session.target(params.selector, params.ref) : undefined;
    const longSide = params.downscale ? DOWNSCALE_LONG_SIDE_PX : Infinity;
    const limits = {
      width: Math.min(params.maxWidth ?? Infinity, longSide),
      height: Math.min(params.maxHeight ?? Infinity, longSide),
    };
    const shape = { locator, clip, fullPage };
    const deadline = Date.now() + timeout;
    const pixelRatio = params.scale === 'device' ? await devicePixelRatio(session, timeout) : 1;
    const scaled =
      Number.isFinite(limits.width) || Number.isFinite(limits.height) || format === 'webp'
        ? await withDeadline(
            browserShot(session, shape, { limits, format, quality: params.quality }, pixelRatio, timeout),
            timeout,
            () => new DeadlineError('the scaled screenshot', timeout, ''),
          )
        : undefined;
    const { buffer, scale } = scaled ?? {
      buffer: await playwrightShot(session, shape, {
        type: format === 'jpeg' ? 'jpeg' : 'png',
        quality: params.quality,
        // What the measuring left of the timeout (it found the capture within the limits).
        timeout: Math.max(1, deadline - Date.now()),
        animations: 'disabled',
        scale: params.scale,
      }),
      scale: pixelRatio,
    };
    const limit = services.config.maxScreenshotBytes;
    if (buffer.length > limit) {
      throw new ServiceError(
        'LIMIT_REACHED',
        `The screenshot is ${buffer.length} bytes, over MAX_SCREENSHOT_BYTES (${limit}); capture less (an element, a clip, the viewport), downscale it (maxWidth, downscale), or use image/jpeg with a lower quality.`,
        { bytes: buffer.length, limit },
      );
    }
    const size = imageSize(buffer);
    if (size === undefined) throw new Error(`Chromium answered a screenshot that is not a ${format}`);
    return { base64: buffer.toString('base64'), mime: params.mime, bytes: buffer.length, ...size, scale };
  },
});

export const screenshotMethods = [screenshot];
