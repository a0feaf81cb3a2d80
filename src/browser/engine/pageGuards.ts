/**
 * Caps applied in the page, before what a page produces crosses into Node: a page is hostile, and
 * everything it sends over CDP is parsed and held by this process (DESIGN §11: the service never
 * dies of a page).
 */

/** A URL kept in a session's entries (network, blocked, settle) is cut here: a page may make 2 MB URLs. */
export const MAX_ENTRY_URL_CHARS = 2048;
/** A console argument longer than this is cut in the page, before CDP carries it to the service (under the 4,000 of a whole message, so the mark of the cut survives). */
export const MAX_CONSOLE_ARG_CHARS = 3000;

/** A URL for a session's entries: cut at MAX_ENTRY_URL_CHARS, saying how much was cut. */
export function capUrl(url: string): string {
  return url.length > MAX_ENTRY_URL_CHARS
    ? `${url.slice(0, MAX_ENTRY_URL_CHARS)}…[${url.length - MAX_ENTRY_URL_CHARS} more chars]`
    : url;
}

/**
 * Runs in every document of a service context before the page's own scripts: console methods cut
 * long string arguments, so one console.log of 500 MB sends 4 KB over CDP. A page can still reach an
 * unwrapped console through a realm the script has not run in yet (docs/security.md says so); the
 * service's own clip of every message stays behind it.
 */
export const PAGE_GUARD_SCRIPT = `(() => {
  const max = ${MAX_CONSOLE_ARG_CHARS};
  const cut = (v) => typeof v === 'string' && v.length > max ? v.slice(0, max) + '… [cut in the page: ' + (v.length - max) + ' more chars]' : v;
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert', 'count', 'timeLog', 'group', 'groupCollapsed']) {
    const original = console[name];
    if (typeof original !== 'function') continue;
    const wrapped = function (...args) { return original.apply(this, args.map(cut)); };
    console[name] = wrapped;
  }
})();`;
