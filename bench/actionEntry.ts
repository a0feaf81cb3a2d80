// What the action timeline's entry costs the service's event loop a call, in process: recordAction
// (masked params as JSON, the entry, the script step) for a page.text and a page.click, many times.
// `npx tsx bench/actionEntry.ts`; prints microseconds a call for each of three rounds.
import { SessionLog } from '../src/browser/events/sessionLog.js';
import type { Session } from '../src/browser/session/session.js';
import { recordAction } from '../src/methods/actionTimeline.js';

const CALLS_A_ROUND = 20_000;
const ROUNDS = 3;

const session = {
  log: new SessionLog(),
  activeId: 'p1',
  snapshots: { latest: () => undefined },
} as unknown as Session;

for (let round = 1; round <= ROUNDS; round++) {
  const started = performance.now();
  for (let i = 0; i < CALLS_A_ROUND / 2; i++) {
    recordAction(
      session,
      'page.text',
      { session_id: 's', selector: 'h1' },
      performance.now(),
      {},
      {
        result: { text: 'Hello world' },
      },
    );
    recordAction(
      session,
      'page.click',
      { session_id: 's', ref: 'e12' },
      performance.now(),
      { e12: 'button "Add to cart"' },
      { result: { navigated: true, url: 'http://127.0.0.1/cart', title: 'Cart' } },
    );
  }
  const micros = ((performance.now() - started) / CALLS_A_ROUND) * 1000;
  console.log(`round ${round}: ${micros.toFixed(1)} µs a call`);
}
