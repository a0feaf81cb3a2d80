// What session.create emulates: a Playwright device descriptor by name (viewport, DPR,
// isMobile, touch, user agent), locale, timezone, geolocation, colour scheme, permissions. Explicit
// params win over the device's.
import { Type, type Static } from '@sinclair/typebox';
import { devices } from 'playwright-core';
import type { ContextOverrides } from '../../browser/engine/contextPool.js';
import { ServiceError } from '../../errors/serviceError.js';

/**
 * The permissions a session may be granted. Left out on purpose: camera, microphone, midi and
 * midi-sysex (devices of the machine the service runs on), local-network-access, local-fonts (the
 * host's fonts). The clipboard ones are the session's own clipboard (CLIPBOARD_PERMISSIONS).
 */
export const GRANTABLE_PERMISSIONS = [
  'accelerometer',
  'ambient-light-sensor',
  'background-sync',
  'geolocation',
  'gyroscope',
  'magnetometer',
  'notifications',
  'payment-handler',
  'screen-wake-lock',
  'storage-access',
] as const;

/**
 * Granted on the session's own clipboard (browser/engine/sessionClipboard.ts), never on the browser's: the
 * browser has one clipboard for every session, so a page granted clipboard-read there would read
 * what another caller's page copied (seen here: a page of one context read the text a page of
 * another context wrote). clipboard-read lets navigator.clipboard.readText answer; writes are always
 * kept in the session's clipboard.
 */
export const CLIPBOARD_PERMISSIONS = ['clipboard-read', 'clipboard-write'] as const;

const PERMISSIONS = [...GRANTABLE_PERMISSIONS, ...CLIPBOARD_PERMISSIONS];

/** Device names suggested when one is not known. */
const MAX_DEVICE_SUGGESTIONS = 5;

export const EmulationParams = {
  device: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "A Playwright device descriptor by name ('iPhone 13', 'Pixel 7', 'Desktop Chrome' …): its viewport, device scale factor, mobile mode, touch and user agent. viewport and userAgent given beside it win.",
    }),
  ),
  locale: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
      maxLength: 35,
      description: "navigator.language, Accept-Language and Intl's default locale, e.g. de-DE.",
    }),
  ),
  timezoneId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. Europe/Berlin.' }),
  ),
  geolocation: Type.Optional(
    Type.Object(
      {
        latitude: Type.Number({ minimum: -90, maximum: 90 }),
        longitude: Type.Number({ minimum: -180, maximum: 180 }),
        accuracy: Type.Optional(Type.Number({ minimum: 0, description: 'Metres; default 0.' })),
      },
      {
        additionalProperties: false,
        description: "The position navigator.geolocation reports (grant the 'geolocation' permission too).",
      },
    ),
  ),
  colorScheme: Type.Optional(
    Type.Union([Type.Literal('light'), Type.Literal('dark'), Type.Literal('no-preference')], {
      description: 'What prefers-color-scheme matches.',
    }),
  ),
  permissions: Type.Optional(
    Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))), {
      maxItems: PERMISSIONS.length,
      uniqueItems: true,
      description:
        "Permissions granted to every origin. clipboard-read and clipboard-write apply to the session's own clipboard, not the browser's (which every session shares). Not grantable: camera, microphone, midi (devices of the service host).",
    }),
  ),
};

type Emulation = { [K in keyof typeof EmulationParams]?: Static<(typeof EmulationParams)[K]> };

function refuse(path: string, message: string): ServiceError {
  return new ServiceError('INVALID_PARAMS', `Invalid params for session.create: ${message}`, {
    method: 'session.create',
    errors: [{ path, message, keyword: 'enum', params: {} }],
  });
}

/** The device descriptor of a name, or INVALID_PARAMS with the nearest names. */
function deviceNamed(name: string): (typeof devices)[string] {
  const found = Object.hasOwn(devices, name) ? devices[name] : undefined;
  if (found !== undefined) return found;
  throw refuse('/device', `no device named '${name}'${nearDevices(name)} (Playwright's device list)`);
}

/** "; close: 'iPhone 13', …" for the device names sharing a word with `name`, or nothing. */
function nearDevices(name: string): string {
  const words = name.toLowerCase().split(/\s+/);
  const near = Object.keys(devices)
    .filter((d) => words.some((w) => w.length > 1 && d.toLowerCase().includes(w)))
    .slice(0, MAX_DEVICE_SUGGESTIONS);
  return near.length > 0 ? `; close: ${near.map((d) => `'${d}'`).join(', ')}` : '';
}

/** Whether the JavaScript engine knows the time zone (Chromium and Node share the IANA list). */
function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    // RangeError: not a time zone this engine knows.
    return false;
  }
}

/** The permissions granted by the browser: the clipboard ones are the session's own. */
function browserPermissions(asked: readonly string[] | undefined): string[] | undefined {
  const granted = asked?.filter((p) => !(CLIPBOARD_PERMISSIONS as readonly string[]).includes(p));
  return granted === undefined || granted.length === 0 ? undefined : granted;
}

/** The context options for the emulation params; viewport and userAgent given beside a device win. */
export function emulationOverrides(
  params: Emulation,
  explicit: Pick<ContextOverrides, 'viewport' | 'userAgent'>,
): ContextOverrides {
  if (params.timezoneId !== undefined && !knownTimeZone(params.timezoneId))
    throw refuse('/timezoneId', `'${params.timezoneId}' is not an IANA time zone (e.g. Europe/Berlin)`);
  const device = params.device === undefined ? undefined : deviceNamed(params.device);
  const overrides: ContextOverrides = {
    viewport: explicit.viewport ?? device?.viewport,
    userAgent: explicit.userAgent ?? device?.userAgent,
    deviceScaleFactor: device?.deviceScaleFactor,
    isMobile: device?.isMobile,
    hasTouch: device?.hasTouch,
    locale: params.locale,
    timezoneId: params.timezoneId,
    geolocation: params.geolocation,
    colorScheme: params.colorScheme,
    permissions: browserPermissions(params.permissions),
  };
  return overrides;
}
