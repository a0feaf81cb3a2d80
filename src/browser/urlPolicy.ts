/**
 * The navigation allow-list. The regex is matched against the canonical form of the URL (WHATWG
 * URL parsing), never the string the caller sent: `http://localhost@evil.test/` has host evil.test,
 * and `http://2130706433/` is http://127.0.0.1/.
 */
export type PolicyVerdict = { allowed: true; url: string } | { allowed: false; url: string; reason: string };

/** Schemes a subresource may use without a network request of its own. */
const LOCAL_SUBRESOURCE_SCHEMES = new Set(['data:', 'blob:']);

/** The WHATWG parse of a URL, or the verdict for one that is not absolute. */
function parseAbsolute(raw: string): URL | PolicyVerdict {
  try {
    return new URL(raw);
  } catch {
    return { allowed: false, url: raw, reason: 'not an absolute URL' };
  }
}

export class UrlPolicy {
  constructor(readonly allowHostRegex: RegExp) {}

  /** For a URL a caller asks to open (page.goto, tabs.open): only http(s) on the list, or about:blank. */
  checkNavigation(raw: string): PolicyVerdict {
    const url = parseAbsolute(raw);
    if (!(url instanceof URL)) return url;
    if (url.href === 'about:blank') return { allowed: true, url: url.href };
    return this.checkNetwork(url);
  }

  /** For a request the page makes: data: and blob: need no network; everything else as a navigation. */
  checkRequest(raw: string): PolicyVerdict {
    const url = parseAbsolute(raw);
    if (!(url instanceof URL)) return url;
    if (LOCAL_SUBRESOURCE_SCHEMES.has(url.protocol) || url.href === 'about:blank')
      return { allowed: true, url: url.href };
    return this.checkNetwork(url);
  }

  /** For a tunnel (CONNECT host:port) where only the origin is known. */
  checkOrigin(host: string, port: string): PolicyVerdict {
    const candidates = [`https://${host}:${port}/`, `http://${host}:${port}/`];
    for (const candidate of candidates) {
      const verdict = this.checkRequest(candidate);
      // The tunnel connects to `host` itself: allowed only when parsing it gave back the same host,
      // so `127.0.0.1#.evil.test` cannot pass as 127.0.0.1.
      if (verdict.allowed && sameHost(new URL(verdict.url).hostname, host)) return verdict;
    }
    return { allowed: false, url: `${host}:${port}`, reason: `${host}:${port} is outside the allow-list` };
  }

  private checkNetwork(url: URL): PolicyVerdict {
    const scheme = url.protocol === 'ws:' ? 'http:' : url.protocol === 'wss:' ? 'https:' : url.protocol;
    if (scheme !== 'http:' && scheme !== 'https:') {
      return {
        allowed: false,
        url: url.href,
        reason: `the ${url.protocol} scheme is not allowed; only http and https are`,
      };
    }
    if (url.username || url.password) {
      // The verdict's URL is logged and returned: never with the credentials in it.
      const bare = new URL(url.href);
      bare.username = '';
      bare.password = '';
      return { allowed: false, url: bare.href, reason: 'URLs with credentials (user:pass@) are not allowed' };
    }
    // Match the canonical http(s) form, so a ws:// URL is judged by the same rule as its origin.
    const canonical =
      scheme === url.protocol ? url.href : `${scheme}//${url.host}${url.pathname}${url.search}`;
    if (!this.allowHostRegex.test(canonical)) {
      return {
        allowed: false,
        url: url.href,
        reason: `${url.host} is outside the allow-list (ALLOW_HOST_REGEX)`,
      };
    }
    return { allowed: true, url: url.href };
  }
}

function sameHost(parsed: string, raw: string): boolean {
  return parsed.replace(/^\[|\]$/g, '') === raw.replace(/^\[|\]$/g, '').toLowerCase();
}
