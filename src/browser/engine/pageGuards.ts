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

/** Console calls a document may make a second, and at once, before they are dropped in it (PAGE_EVENT_RATE, PAGE_EVENT_BURST). */
export const DEFAULT_CONSOLE_RATE = 200;
export const DEFAULT_CONSOLE_BURST = 1000;
/**
 * Popups (window.open) a document may open at once, and a second after that: past it window.open
 * answers null, as a popup blocker does. Each popup is a page the browser builds and the service
 * attaches to, on the CPU every session shares: with a burst of 25 and 2 a second, another key's
 * calls beside a page opening popups without end had a p99 of 4.8–5.1× their figure alone; with
 * 10 and 1, 1.6–2.4× (`bench --only neighbours`). No site a person uses opens more at once.
 */
export const POPUP_BURST = 10;
export const POPUP_RATE = 1;
/** The page tells its owner how many console calls it dropped at most this often. */
export const CONSOLE_DROP_REPORT_MS = 1000;
/** How the page's own report of what it dropped begins (a warning in the session's console log). */
export const CONSOLE_DROP_MARK = '[playwright-jsonrpc]';
/**
 * Marks the last argument the wrapper adds to a console call: where the page called it from
 * (url:line:column). The wrapper is the frame Chromium reports a console call at, so without it
 * every entry's location would be the wrapper's; the service takes the argument off the text.
 */
export const CONSOLE_LOCATION_MARK = '\u2063@';
/** The console methods whose calls carry their location (those whose extra arguments are printed). */
const LOCATED = ['log', 'info', 'warn', 'error', 'debug', 'trace'];

/**
 * Runs in every document of a service context before the page's own scripts: console methods cut
 * long string arguments, so one console.log of 500 MB sends 4 KB over CDP, and say where they were
 * called from (CONSOLE_LOCATION_MARK). Past `rate` a second
 * (after a burst), console calls do nothing but count, and uncaught errors and rejections are
 * marked handled (preventDefault on their event, the first listener of the window), so Chromium
 * does not report them over the browser pipe every session shares; once a second the counts are
 * one warning. window.open past POPUP_BURST, then POPUP_RATE a second, answers null. A page can
 * still reach an unwrapped console through a realm the script has not run in yet
 * (docs/security.md says so); the service's own clip of every message and its budget per page
 * (session/pageFlood.ts) stay behind it.
 */
export function pageGuardScript(budget: { rate?: number; burst?: number } = {}): string {
  const rate = budget.rate ?? DEFAULT_CONSOLE_RATE;
  const burst = budget.burst ?? DEFAULT_CONSOLE_BURST;
  return `(() => {
  const max = ${MAX_CONSOLE_ARG_CHARS};
  const cut = (v) => typeof v === 'string' && v.length > max ? v.slice(0, max) + '… [cut in the page: ' + (v.length - max) + ' more chars]' : v;
  const now = performance.now.bind(performance);
  const later = window.setTimeout.bind(window);
  const warn = console.warn;
  const bucket = (rate, burst) => {
    let tokens = burst;
    let last = now();
    return () => {
      const at = now();
      tokens = Math.min(burst, tokens + ((at - last) * rate) / 1000);
      last = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    };
  };
  const dropped = { 'console calls': 0, 'uncaught errors': 0, popups: 0 };
  let reporting = false;
  const drop = (kind) => {
    dropped[kind]++;
    if (reporting) return;
    reporting = true;
    later(() => {
      reporting = false;
      const parts = Object.keys(dropped).filter((k) => dropped[k] > 0).map((k) => dropped[k] + ' ' + k);
      for (const k of Object.keys(dropped)) dropped[k] = 0;
      warn.call(console, ${JSON.stringify(CONSOLE_DROP_MARK)} + ' ' + parts.join(', ') + ' of this page dropped in the page: over ' + ${rate} + ' a second (PAGE_EVENT_RATE, PAGE_EVENT_BURST; popups: ' + ${POPUP_RATE} + ' a second)');
    }, ${CONSOLE_DROP_REPORT_MS});
  };
  const consoleBudget = bucket(${rate}, ${burst});
  for (const name of ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'dirxml', 'table', 'assert', 'count', 'timeLog', 'group', 'groupCollapsed']) {
    const original = console[name];
    if (typeof original !== 'function') continue;
    const located = ${JSON.stringify(LOCATED)}.includes(name);
    const wrapped = function (...args) {
      if (!consoleBudget()) {
        drop('console calls');
        return undefined;
      }
      const out = args.map(cut);
      if (located) {
        // The caller's frame: the line after this function's own in the stack.
        const frame = (String(new Error().stack).split('\\n')[2] || '').match(/\\(?([^\\s(]+):(\\d+):(\\d+)\\)?\\s*$/);
        if (frame) out.push(${JSON.stringify(CONSOLE_LOCATION_MARK)} + frame[1] + ':' + frame[2] + ':' + frame[3]);
      }
      return original.apply(this, out);
    };
    console[name] = wrapped;
  }
  const errorBudget = bucket(${rate}, ${burst});
  const onError = (event) => {
    if (errorBudget()) return;
    drop('uncaught errors');
    event.preventDefault();
  };
  window.addEventListener('error', onError, true);
  window.addEventListener('unhandledrejection', onError, true);
  const open = window.open;
  const popupBudget = bucket(${POPUP_RATE}, ${POPUP_BURST});
  window.open = function (...args) {
    if (popupBudget()) return open.apply(this, args);
    drop('popups');
    return null;
  };
})();`;
}
