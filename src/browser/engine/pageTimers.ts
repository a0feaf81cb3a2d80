// The timers an action starts, seen from the page. An app that validates a field 100 ms after
// keyup, debounces a search or shows a menu after a delay changes the page after the action's own
// requests ended, so a settle that waits only for requests answers before the app reacted. Every
// document of a service context runs this script before its own: setTimeout notes each timer it
// starts with the time its chain began (a timer started by another timer's callback belongs to that
// timer's chain). A page's own polling chains begin at load, so only the chains that began during an
// action are its effect; the settle asks the page for those still due (actionSettle.ts).

/** The page's name for the tracker: a frozen, non-writable property of window. */
export const TIMER_TRACKER_KEY = '__playwrightJsonrpcTimers';
/** A timer longer than this is not the action's effect to wait for (a toast that hides after 5 s). */
export const MAX_TRACKED_TIMER_MS = 1_000;
/** Timers one document keeps noted at most: past it a page's timers run untracked, never refused. */
export const MAX_TRACKED_TIMERS = 1_000;

/** What the tracker offers the settle's evaluate. */
export interface PageTimers {
  /** How many noted timers whose chain began at or after `from` (performance.now()) are still due. */
  pending(from: number): number;
  /** Calls `fn` after `ms` with the page's own setTimeout, unnoted. */
  later(fn: () => void, ms: number): void;
}

export const TIMER_TRACKER_SCRIPT = `(() => {
  const key = ${JSON.stringify(TIMER_TRACKER_KEY)};
  if (Object.prototype.hasOwnProperty.call(window, key)) return;
  const set = window.setTimeout;
  const clear = window.clearTimeout;
  const noted = new Map();
  let running = null;
  window.setTimeout = function (handler, delay, ...args) {
    const ms = Math.max(0, Number(delay) || 0);
    if (typeof handler !== 'function' || ms > ${MAX_TRACKED_TIMER_MS} || noted.size >= ${MAX_TRACKED_TIMERS})
      return set.apply(this, arguments);
    const began = running === null ? performance.now() : running.began;
    const timer = { began };
    const id = set.call(this, function () {
      noted.delete(id);
      const outer = running;
      running = timer;
      try {
        return handler.apply(this, arguments);
      } finally {
        running = outer;
      }
    }, ms, ...args);
    noted.set(id, timer);
    return id;
  };
  window.clearTimeout = function (id) {
    noted.delete(id);
    return clear.apply(this, arguments);
  };
  const tracker = Object.freeze({
    pending(from) {
      let n = 0;
      for (const timer of noted.values()) if (timer.began >= from) n++;
      return n;
    },
    later(fn, ms) {
      set.call(window, fn, ms);
    },
  });
  Object.defineProperty(window, key, { value: tracker, writable: false, configurable: false, enumerable: false });
})();`;
