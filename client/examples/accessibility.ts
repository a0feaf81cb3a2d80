// Accessibility check of a page: axe-core's violations (axe.run), then role-based lookups
// (find.byRole) the way an agent finds what to click without brittle CSS, and one click on the ref
// of a match find.byRole returned.
//   npx tsx client/examples/accessibility.ts  (SERVICE_URL, API_KEY, FIXTURE_URL)
import { createClient } from '../src/index.js';
import { apiKey, fixtureUrl, serviceUrl } from './env.js';

const client = createClient({ url: serviceUrl, apiKey });
const { session_id } = await client.session.create();
try {
  const nav = await client.page.goto({ session_id, url: `${fixtureUrl}/a11y` });
  const axe = await client.axe.run({ session_id });

  const heading = await client.find.byRole({ session_id, role: 'heading', name: 'A11y' });
  const buttons = await client.find.byRole({ session_id, role: 'button' });
  const formLink = await client.find.byRole({ session_id, role: 'link', name: 'Form', exact: true });
  // A match's ref is what page.click takes (in frames too); nothing found is count 0, not an error.
  const ref = formLink.matches[0]?.ref;
  if (ref === undefined || ref === null) throw new Error(`no link named Form: ${JSON.stringify(formLink)}`);
  await client.page.click({ session_id, ref });
  await client.page.waitFor({ session_id, state: 'load' });
  const after = await client.page.evaluate({ session_id, expression: 'location.href' });

  const report = {
    url: nav.url,
    violations: axe.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodeCount,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })),
    passes: axe.passes,
    roles: { heading, buttons, formLink },
    followed_link: { ref, url_after: after.result },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await client.session.close({ session_id });
}
