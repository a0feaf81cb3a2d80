// The report a Claude subagent hands its supervising agent (seed 003 §13 and §17), built from the
// service's own answers: docs/claude-subagents.md is the contract this follows field by field.
import type { LogsPullResult, NetworkPullResult } from '../src/methods.generated.js';

/** The seed asks for the first 1–2 KB of the page text: at most this many UTF-8 bytes. */
export const TEXT_EXCERPT_MAX_BYTES = 2048;

/** A failed request as network.pull lists it, without its timestamp and resource type. */
export interface NetworkError {
  url: string;
  method: string;
  /** HTTP status; null when the request failed without a response. */
  status: number | null;
  /** Why it failed (net::ERR_…, the allow-list), when the service says. */
  failure?: string;
}

/** The seed's output object, with its field names exactly. */
export interface SubagentReport {
  url: string;
  action_taken: string;
  text_excerpt: string;
  console_errors: string[];
  network_errors: NetworkError[];
  next_step: string;
}

export interface ReportInput {
  /** The page URL after the last step (the url of page.snapshot's answer, or of an action report). */
  url: string;
  /** What was done, in order. */
  actions: string[];
  /** page.text's text of the element read. */
  text: string;
  /** logs.pull's answer. */
  logs: LogsPullResult;
  /** network.pull's answer (onlyErrors: true). */
  network: NetworkPullResult;
  /** The error that stopped the flow (a failed call, or a failed page.act step), when one did. */
  failure?: string | undefined;
}

/** The longest prefix of text whose UTF-8 encoding fits in maxBytes, never splitting a character. */
export function excerpt(text: string, maxBytes = TEXT_EXCERPT_MAX_BYTES): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/** console.error lines (with where they were logged) and uncaught page errors, from logs.pull. */
export function consoleErrors(logs: LogsPullResult): string[] {
  return [
    ...logs.console
      .filter((entry) => entry.type === 'error')
      .map((entry) => (entry.location === undefined ? entry.text : `${entry.text} (${entry.location})`)),
    ...logs.pageErrors.map((error) => `uncaught: ${error.message}`),
  ];
}

/** Failed, refused and >= 400 requests, from network.pull. */
export function networkErrors(network: NetworkPullResult): NetworkError[] {
  return network.requests
    .filter((r) => r.failure !== undefined || r.blocked === true || (r.status !== null && r.status >= 400))
    .map(({ url, method, status, failure }) =>
      failure === undefined ? { url, method, status } : { url, method, status, failure },
    );
}

function nextStep(failure: string | undefined, errors: string[], requests: NetworkError[]): string {
  if (failure !== undefined) {
    return `The flow stopped (${failure}): read text_excerpt and the errors, take a new page.snapshot, and act on its refs.`;
  }
  const request = requests[0];
  if (request !== undefined) {
    const why = request.status === null ? (request.failure ?? 'no response') : `HTTP ${request.status}`;
    return `Investigate ${request.method} ${request.url} (${why}) and whether the page handles that failure.`;
  }
  const first = errors[0];
  if (first !== undefined) return `Look into the console errors, starting with: ${first}`;
  return 'Nothing failed: carry on with the task.';
}

/** The report, from what the flow saw: every field from an answer of the service. */
export function buildReport(input: ReportInput): SubagentReport {
  const errors = consoleErrors(input.logs);
  const requests = networkErrors(input.network);
  return {
    url: input.url,
    action_taken: input.actions.join('; '),
    text_excerpt: excerpt(input.text),
    console_errors: errors,
    network_errors: requests,
    next_step: nextStep(input.failure, errors, requests),
  };
}
