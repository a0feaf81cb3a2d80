// The browser tier as config keys: BROWSER_ENDPOINTS (remote Playwright browser servers
// instead of the local Chromium) and where the egress proxy listens so those servers reach it. Kept
// apart from configKeys.ts and config.ts (both near the file-size limit); their table is spread
// into CONFIG_KEYS and their values into Config.

/** The most contexts one endpoint may be given with #cap. */
export const MAX_ENDPOINT_CAPACITY = 10_000;

/** Binds that only this machine reaches. */
const LOOPBACK_BIND = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;

export const BROWSER_TIER_KEYS = {
  BROWSER_ENDPOINTS: {
    default: '',
    group: 'browser',
    description:
      'Remote browser servers (playwright-jsonrpc browser-server) to place sessions on instead of the local Chromium: comma-separated ws:// URLs, each with an optional #cap=N (default MAX_SESSIONS). See operations.md, "Remote browsers".',
  },
  EGRESS_PROXY_HOST: {
    default: '127.0.0.1',
    group: 'browser',
    description:
      "Address the egress proxy binds. Loopback for the local browser; with BROWSER_ENDPOINTS, an address the browser servers reach (it answers only contexts holding the service's per-context logins).",
  },
  EGRESS_PROXY_PORT: {
    default: '0',
    group: 'browser',
    description:
      "The egress proxy's port; 0 picks a free one (a fixed one helps a firewall rule for remote browser servers).",
  },
  EGRESS_PROXY_ADVERTISED_HOST: {
    default: '',
    group: 'browser',
    description:
      'The name or address remote browser servers use to reach the egress proxy; empty: EGRESS_PROXY_HOST (127.0.0.1 when that is a wildcard).',
  },
} as const;

/** One BROWSER_ENDPOINTS entry (browser/engine/remoteBrowsers.ts EndpointSpec has the same shape). */
export interface EndpointSpec {
  /** The ws:// URL without its #cap fragment. */
  url: string;
  /** The most contexts the server is given. */
  capacity: number;
}

export type BrowserTierKey = keyof typeof BROWSER_TIER_KEYS;

export interface BrowserTierConfig {
  browserEndpoints: EndpointSpec[];
  egressProxyHost: string;
  egressProxyPort: number;
  egressProxyAdvertisedHost: string;
}

/** Parses BROWSER_ENDPOINTS: `ws://h:p/path#cap=40, ws://h2:p2/path`; the cap defaults to `defaultCap`. */
export function parseEndpoints(
  raw: string,
  defaultCap: number,
  fail: (message: string) => Error,
): EndpointSpec[] {
  const specs: EndpointSpec[] = [];
  for (const entry of raw.split(',')) {
    const text = entry.trim();
    if (text === '') continue;
    if (!URL.canParse(text) || !/^wss?:$/.test(new URL(text).protocol))
      throw fail(`each entry must be a ws:// or wss:// URL, got "${text.replace(/\/.*/, '/…')}"`);
    const url = new URL(text);
    let capacity = defaultCap;
    if (url.hash !== '') {
      const m = /^#cap=(\d+)$/.exec(url.hash);
      const n = Number(m?.[1]);
      if (m === null || n < 1 || n > MAX_ENDPOINT_CAPACITY)
        throw fail(
          `an entry's fragment must be #cap=N with N from 1 to ${MAX_ENDPOINT_CAPACITY}, got "${url.hash}"`,
        );
      capacity = n;
      url.hash = '';
    }
    if (specs.some((s) => s.url === url.href)) throw fail(`${url.protocol}//${url.host} is listed twice`);
    specs.push({ url: url.href, capacity });
  }
  return specs;
}

/** Reads the tier's keys; a cap defaults to MAX_SESSIONS. */
export function loadBrowserTierConfig(
  get: (key: BrowserTierKey) => string,
  maxSessions: number,
  fail: (key: BrowserTierKey, message: string) => Error,
): BrowserTierConfig {
  const portText = get('EGRESS_PROXY_PORT').trim();
  if (!/^\d+$/.test(portText) || Number(portText) > 65_535)
    throw fail('EGRESS_PROXY_PORT', `must be a port from 0 to 65535, got "${portText}"`);
  const host = get('EGRESS_PROXY_HOST').trim();
  if (host === '') throw fail('EGRESS_PROXY_HOST', 'must be an address to bind');
  const advertised = get('EGRESS_PROXY_ADVERTISED_HOST').trim();
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  const browserEndpoints = parseEndpoints(get('BROWSER_ENDPOINTS'), maxSessions, (m) =>
    fail('BROWSER_ENDPOINTS', m),
  );
  // The local browser's proxy checks no logins: off loopback it would be an open proxy.
  if (browserEndpoints.length === 0 && !LOOPBACK_BIND.test(host))
    throw fail(
      'EGRESS_PROXY_HOST',
      `${host} is not loopback: only with BROWSER_ENDPOINTS (whose contexts carry per-context logins) may the egress proxy listen beyond it`,
    );
  return {
    browserEndpoints,
    egressProxyHost: host,
    egressProxyPort: Number(portText),
    egressProxyAdvertisedHost: advertised !== '' ? advertised : wildcard ? '127.0.0.1' : host,
  };
}
