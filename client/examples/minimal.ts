// The seed's minimal client (§14) with the typed client: open a session, navigate, read the visible
// text, pull the console, close.
//   npx tsx client/examples/minimal.ts        (SERVICE_URL, API_KEY, FIXTURE_URL)
import { createClient } from '../src/index.js';
import { apiKey, fixtureUrl, serviceUrl } from './env.js';

const client = createClient({ url: serviceUrl, apiKey });

const { session_id } = await client.session.create();
try {
  await client.page.goto({ session_id, url: fixtureUrl, waitUntil: 'networkidle' });
  const { text } = await client.page.text({ session_id, selector: 'main' });
  console.log(text.slice(0, 1000));
  const logs = await client.logs.pull({ session_id });
  console.log('console:', JSON.stringify(logs.console.map(({ type, text }) => ({ type, text }))));
} finally {
  await client.session.close({ session_id });
}
