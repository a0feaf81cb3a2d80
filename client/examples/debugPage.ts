// Debug a page the way the seed's subagent contract (§13) says: navigate, act, re-read, and on the
// way pull the console and network signals; print the report the supervising agent expects:
// { url, action_taken, text_excerpt, console_errors, network_errors, next_step }.
//   npx tsx client/examples/debugPage.ts      (SERVICE_URL, API_KEY, FIXTURE_URL)
import { createClient, RpcClientError, type RpcClient } from '../src/index.js';
import type { NetworkError, SubagentReport } from '../agent/subagentReport.js';
import { apiKey, fixtureUrl, serviceUrl } from './env.js';

/** The seed asks for the first 1–2 KB of the page text. */
const TEXT_EXCERPT_CHARS = 2000;

/** The seed's output object (the Claude subagent contract builds the same one). */
type DebugReport = SubagentReport;

function explain(error: unknown): string {
  if (error instanceof RpcClientError) return `${error.errorName ?? error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function nextStep(
  failure: string | undefined,
  consoleErrors: string[],
  networkErrors: NetworkError[],
): string {
  if (failure !== undefined) {
    return `The action failed (${failure}); read text_excerpt, then retry with a role-based selector (find.byRole).`;
  }
  const failed = networkErrors[0];
  if (failed !== undefined) {
    const status = failed.status === null ? (failed.failure ?? 'no response') : `HTTP ${failed.status}`;
    return `Investigate ${failed.method} ${failed.url} (${status}) and whether the page handles that failure.`;
  }
  if (consoleErrors.length > 0) return `Look into the console errors, starting with: ${consoleErrors[0]}`;
  return 'Nothing failed: carry on with the task.';
}

async function debugProjects(
  client: RpcClient,
  session_id: string,
): Promise<{ report: DebugReport; failed: boolean }> {
  const actions: string[] = [];
  let url = `${fixtureUrl}/projects`;
  let failure: string | undefined;
  try {
    const nav = await client.page.goto({ session_id, url, waitUntil: 'networkidle' });
    url = nav.url;
    actions.push(`opened ${nav.url} (HTTP ${nav.status ?? 'none'})`);
    await client.page.click({ session_id, selector: 'role=button[name="New Project"]' });
    actions.push('clicked "New Project"');
    const field = await client.find.byRole({ session_id, role: 'textbox', name: 'Project name' });
    await client.page.fill({ session_id, selector: field.selector, value: 'Zephyr' });
    await client.page.press({ session_id, selector: field.selector, key: 'Enter' });
    actions.push('typed "Zephyr" into "Project name" and pressed Enter');
  } catch (error) {
    failure = explain(error);
    actions.push(`failed: ${failure}`);
  }

  // Read and pull signals whether or not the actions worked: that is what explains a failure.
  const text = await client.page
    .text({ session_id, selector: 'body', maxChars: TEXT_EXCERPT_CHARS })
    .then((r) => r.text)
    .catch((error: unknown) => `(no text: ${explain(error)})`);
  const logs = await client.logs.pull({ session_id });
  const network = await client.network.pull({ session_id, onlyErrors: true });

  const consoleErrors = [
    ...logs.console
      .filter((entry) => entry.type === 'error')
      .map((entry) => (entry.location === undefined ? entry.text : `${entry.text} (${entry.location})`)),
    ...logs.pageErrors.map((e) => `uncaught: ${e.message}`),
  ];
  const networkErrors = network.requests.map(({ url: requestUrl, method, status, failure: why }) =>
    why === undefined
      ? { url: requestUrl, method, status }
      : { url: requestUrl, method, status, failure: why },
  );
  const report: DebugReport = {
    url,
    action_taken: actions.join('; '),
    text_excerpt: text,
    console_errors: consoleErrors,
    network_errors: networkErrors,
    next_step: nextStep(failure, consoleErrors, networkErrors),
  };
  return { report, failed: failure !== undefined };
}

const client = createClient({ url: serviceUrl, apiKey });
const { session_id } = await client.session.create();
try {
  const { report, failed } = await debugProjects(client, session_id);
  console.log(JSON.stringify(report, null, 2));
  // The report is printed either way; a failed action also fails the process, for scripts and CI.
  if (failed) process.exitCode = 1;
} finally {
  await client.session.close({ session_id });
}
