// The web pages' config keys (/ui): which origins besides the service's own a page may connect to.
// Kept apart from configKeys.ts and config.ts (both near the file-size limit); the table is spread
// into CONFIG_KEYS and the values into Config, as configCaps.ts does.

/** The Anthropic Messages API, which the runner page (ui/runner.html) calls from the browser. */
export const DEFAULT_UI_MODEL_API_ORIGINS = 'https://api.anthropic.com';

/** Each key's entry, in CONFIG_KEYS' shape. */
export const UI_KEYS = {
  UI_MODEL_API_ORIGINS: {
    default: DEFAULT_UI_MODEL_API_ORIGINS,
    group: 'http',
    description:
      "Origins (scheme://host[:port], comma-separated) the runner page /ui/runner.html may call the Messages API at: the /ui pages' Content-Security-Policy connect-src lists them besides the service itself. `none`: the pages connect to the service only.",
  },
} as const;

export interface UiConfig {
  /** UI_MODEL_API_ORIGINS, each an origin as the browser writes it (lower case, no default port). */
  uiModelApiOrigins: string[];
}

/**
 * Parses UI_MODEL_API_ORIGINS: every entry must be an http(s) origin and nothing more (no path,
 * query, credentials or wildcard), since it goes into a CSP header verbatim.
 */
export function loadUiConfig(
  get: (key: keyof typeof UI_KEYS) => string,
  fail: (key: string, message: string) => Error,
): UiConfig {
  const origins: string[] = [];
  const value = get('UI_MODEL_API_ORIGINS');
  if (value.trim().toLowerCase() === 'none') return { uiModelApiOrigins: origins };
  for (const entry of value.split(',')) {
    const raw = entry.trim().replace(/\/$/, '');
    if (raw === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      // Not a URL at all: refused below with the same message as any other bad entry.
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.origin !== raw.toLowerCase() ||
      !/^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(url.hostname) ||
      url.username !== '' ||
      url.password !== ''
    )
      throw fail(
        'UI_MODEL_API_ORIGINS',
        `each entry must be an http(s) origin like https://api.anthropic.com (no path, no wildcard), got "${raw}"`,
      );
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return { uiModelApiOrigins: origins };
}
