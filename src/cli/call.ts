import { parseArgs } from 'node:util';
import { apiKeyFrom, endpointOf, serviceBase, shownUrl, UsageError, URL_ENV } from './serviceUrl.js';

/**
 * How long `call` waits for an answer by default: the longest timeout a method accepts
 * (MAX_TIMEOUT_MS, 300 s) plus time for the service to answer with its own TIMEOUT error, so the
 * caller sees the service's error rather than the CLI giving up first. --timeout overrides it.
 */
export const CALL_TIMEOUT_MS = 330_000;
/** The most `-` reads from stdin: well above the service's default BODY_LIMIT (512 kB), bounded. */
export const MAX_STDIN_BYTES = 8 * 1024 * 1024;
/** How much of a non-JSON-RPC HTTP answer a failure message quotes. */
const MAX_QUOTED_CHARS = 300;

/** Exit codes of `call`: a script can tell a refused call from a service it could not reach. */
export const EXIT_OK = 0;
export const EXIT_RPC_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_TRANSPORT = 3;

export const CALL_HELP = `Usage: playwright-jsonrpc call METHOD [PARAMS_JSON | -] [options]

Calls one JSON-RPC method of a running service and prints its result as JSON on stdout.
PARAMS_JSON is a JSON object (default {}); "-" reads it from stdin.

Options:
  --url URL        the service (base URL or its /rpc endpoint); default $${URL_ENV},
                   then http://127.0.0.1:3337
  --text           print the result's "text" field as plain text when it has one (page.text …)
  --compact        one-line JSON instead of indented
  --timeout MS     give up after MS milliseconds (default ${CALL_TIMEOUT_MS})
  -h, --help       this help

The API key comes from the environment variable API_KEY (the first one when comma-separated).

Exit codes: 0 result printed; 1 the service answered with a JSON-RPC error (printed as JSON on
stderr: code, message, data); 2 bad command line or params; 3 the service could not be reached
or answered without a JSON-RPC body.

Examples:
  S=$(playwright-jsonrpc call session.create | jq -r .session_id)
  playwright-jsonrpc call page.goto "{\\"session_id\\":\\"$S\\",\\"url\\":\\"http://localhost:8080/\\"}"
  echo "{\\"session_id\\":\\"$S\\"}" | playwright-jsonrpc call page.text - --text
  playwright-jsonrpc call session.close "{\\"session_id\\":\\"$S\\"}"
`;

interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > MAX_STDIN_BYTES)
      throw new UsageError(`params on stdin are over ${MAX_STDIN_BYTES} bytes (MAX_STDIN_BYTES)`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseParams(text: string, source: string): unknown {
  if (text.trim() === '') return {};
  let params: unknown;
  try {
    params = JSON.parse(text);
  } catch {
    // The parser's message quotes the input, which may hold a secret (a fill's value): not repeated.
    throw new UsageError(`${source} is not valid JSON`);
  }
  if (typeof params !== 'object' || params === null)
    throw new UsageError(`${source} must be a JSON object or array, e.g. '{"session_id":"s_…"}'`);
  return params;
}

function write(stream: NodeJS.WritableStream, value: unknown, compact: boolean): void {
  stream.write(`${compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}

/** `playwright-jsonrpc call`: one JSON-RPC call over POST /rpc; returns the process's exit code. */
export async function runCall(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      text: { type: 'boolean', default: false },
      compact: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout.write(CALL_HELP);
    return EXIT_OK;
  }
  const [method, paramsArg, ...extra] = positionals;
  if (method === undefined || method === '') throw new UsageError('call needs a METHOD, e.g. session.create');
  if (extra.length > 0) throw new UsageError(`unexpected arguments after the params: ${extra.length}`);
  const timeoutMs = values.timeout === undefined ? CALL_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError('--timeout must be a positive whole number of milliseconds');
  const params =
    paramsArg === '-'
      ? parseParams(await readStdin(io.stdin), 'stdin')
      : parseParams(paramsArg ?? '', 'PARAMS_JSON');
  const base = serviceBase(values.url, io.env);
  const key = apiKeyFrom(io.env);
  const endpoint = endpointOf(base, 'rpc');

  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'x-api-key': key }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms (--timeout)`
        : // The cause says what failed (ECONNREFUSED …); fetch's own message may quote the URL.
          error instanceof Error && error.cause instanceof Error
          ? error.cause.message
          : 'the request failed';
    io.stderr.write(`playwright-jsonrpc: cannot reach ${shownUrl(endpoint)}: ${reason}\n`);
    return EXIT_TRANSPORT;
  }
  const body = await response.text();
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    // Not JSON-RPC (a proxy's page, an HTTP error from something else): quote the start of it.
    reply = undefined;
  }
  if (typeof reply !== 'object' || reply === null || !('result' in reply || 'error' in reply)) {
    io.stderr.write(
      `playwright-jsonrpc: ${shownUrl(endpoint)} answered HTTP ${response.status} without a JSON-RPC body: ${body.slice(0, MAX_QUOTED_CHARS)}\n`,
    );
    return EXIT_TRANSPORT;
  }
  if ('error' in reply) {
    write(io.stderr, reply.error, values.compact);
    if (response.status === 401 && key === undefined)
      io.stderr.write('playwright-jsonrpc: set API_KEY in the environment to the service key\n');
    return EXIT_RPC_ERROR;
  }
  const result = reply.result;
  if (
    values.text &&
    typeof result === 'object' &&
    result !== null &&
    'text' in result &&
    typeof result.text === 'string'
  ) {
    io.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    return EXIT_OK;
  }
  write(io.stdout, result, values.compact);
  return EXIT_OK;
}
