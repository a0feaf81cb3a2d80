// Header values that carry credentials are hidden in network.get and network.har unless the caller
// asks for them (reveal: true): the answer goes to an agent's transcript, which is read and kept.

/** Headers hidden by name. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Headers hidden when their name contains one of these (x-api-key, x-auth-token, x-session-id …). */
const SECRET_PARTS = ['token', 'secret', 'api-key', 'apikey', 'session', 'auth'];

/** Whether a header's value is hidden unless revealed. */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || SECRET_PARTS.some((part) => lower.includes(part));
}

/** What stands for a hidden value: its length only. */
export function redacted(value: string): string {
  return `[redacted: ${value.length} chars]`;
}

/** A headers object with the secret values hidden, unless reveal. */
export function redactHeaders(headers: Record<string, string>, reveal: boolean): Record<string, string> {
  if (reveal) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    out[name] = isSecretHeader(name) ? redacted(value) : value;
  return out;
}

/** A list of header pairs (a HAR's) with the secret values hidden, unless reveal. */
export function redactHeaderList(
  headers: { name: string; value: string }[],
  reveal: boolean,
): { name: string; value: string }[] {
  if (reveal) return headers;
  return headers.map(({ name, value }) => ({ name, value: isSecretHeader(name) ? redacted(value) : value }));
}
