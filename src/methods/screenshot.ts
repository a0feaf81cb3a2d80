import { Type } from '@sinclair/typebox';
import { defineSessionMethod } from './defineSessionMethod.js';
import { ServiceError } from '../errors/serviceError.js';
import { SCREENSHOT_TIMEOUT_MS, timeoutParam } from './params.js';

export const screenshot = defineSessionMethod({
  name: 'screenshot',
  summary: 'Take a screenshot of the viewport or the full page, as base64',
  params: {
    fullPage: Type.Boolean({
      default: false,
      description: 'Capture the whole scrollable page (default false: the viewport).',
    }),
    mime: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')], {
      default: 'image/png',
      description: 'Image format (default image/png).',
    }),
    quality: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'JPEG quality; only with image/jpeg.' }),
    ),
    timeout: timeoutParam(SCREENSHOT_TIMEOUT_MS, 'the screenshot'),
  },
  result: Type.Object({
    base64: Type.String({ description: 'The image, base64-encoded.' }),
    mime: Type.String(),
    bytes: Type.Integer({ description: 'Size of the decoded image.' }),
  }),
  errors: ['TIMEOUT', 'ACTION_FAILED', 'LIMIT_REACHED', 'INVALID_PARAMS'],
  readOnly: true,
  async handler(params, { session, services }) {
    const jpeg = params.mime === 'image/jpeg';
    if (params.quality !== undefined && !jpeg) {
      throw new ServiceError(
        'INVALID_PARAMS',
        'Invalid params for screenshot: quality applies only to mime image/jpeg',
        {
          method: 'screenshot',
          errors: [
            { path: '/quality', message: 'requires mime image/jpeg', keyword: 'dependencies', params: {} },
          ],
        },
      );
    }
    const buffer = await session.page.screenshot({
      fullPage: params.fullPage,
      type: jpeg ? 'jpeg' : 'png',
      quality: params.quality,
      timeout: params.timeout,
      animations: 'disabled',
    });
    const limit = services.config.maxScreenshotBytes;
    if (buffer.length > limit) {
      throw new ServiceError(
        'LIMIT_REACHED',
        `The screenshot is ${buffer.length} bytes, over MAX_SCREENSHOT_BYTES (${limit}); take the viewport only, or use image/jpeg with a lower quality.`,
        {
          bytes: buffer.length,
          limit,
        },
      );
    }
    return { base64: buffer.toString('base64'), mime: params.mime, bytes: buffer.length };
  },
});

export const screenshotMethods = [screenshot];
