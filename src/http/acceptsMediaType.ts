/**
 * True when an Accept header names `type` itself (e.g. text/html, text/event-stream) with a q above
 * 0. A wildcard range (any type, or any subtype of text) does not count: a client gets another
 * form of an answer only when it asked for that form by name, so a client that sends no Accept or
 * a wildcard keeps the default answer.
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  const wanted = type.toLowerCase();
  return accept.split(',').some((range) => {
    const [name, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (name !== wanted) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
