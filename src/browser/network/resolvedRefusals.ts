/**
 * How long a refusal is remembered. The browser reports the failed request within milliseconds of
 * the refusal; a longer memory would pin the reason on a later, unrelated failure of that origin.
 */
const REMEMBER_MS = 10_000;
/** Origins remembered at most: a page cycling through names cannot grow the memory. */
const MAX_REMEMBERED = 256;

/** The default port of each scheme a request through the proxy may have. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'ws:': 80,
  'https:': 443,
  'wss:': 443,
};

/**
 * The egress proxy's recent refusals made after resolving a name (an allowed name that led to an
 * internal address or to an own port), by origin. The policy alone cannot tell such a request was
 * refused: its URL passes. And for https Chromium shows only a failed tunnel, never the proxy's
 * answer, so a session asks here why a request of an allowed URL was refused.
 */
export class ResolvedRefusals {
  private readonly byOrigin = new Map<string, { reason: string; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records that the proxy refused host:port for `reason`. */
  note(host: string, port: number, reason: string): void {
    const key = originKey(host, port);
    this.byOrigin.delete(key);
    this.byOrigin.set(key, { reason, at: this.now() });
    // A Map iterates in insertion order: the first key is the oldest refusal.
    for (const oldest of this.byOrigin.keys()) {
      if (this.byOrigin.size <= MAX_REMEMBERED) break;
      this.byOrigin.delete(oldest);
    }
  }

  /** Why the proxy refused `url`'s origin within the last REMEMBER_MS, if it did. */
  reasonFor(url: string): string | undefined {
    // Not an absolute URL: the proxy refused none by origin (the policy says why it refused it).
    if (!URL.canParse(url)) return undefined;
    const parsed = new URL(url);
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    if (port === undefined) return undefined;
    const key = originKey(parsed.hostname, port);
    const entry = this.byOrigin.get(key);
    if (entry === undefined) return undefined;
    if (this.now() - entry.at > REMEMBER_MS) {
      this.byOrigin.delete(key);
      return undefined;
    }
    return entry.reason;
  }
}

/** host:port with the host lower case, without IPv6 brackets or the trailing dot of a full name. */
function originKey(host: string, port: number): string {
  const bare = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return `${bare}:${port}`;
}
