// A stock JSON-RPC client nobody here wrote (issue 17, item 6): Debian's python3-jsonrpclib-pelix
// posts with Content-Type: application/json-rpc, which POST /rpc accepts, as it accepts
// application/jsonrequest; text/plain and form bodies stay refused (http.test.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useServiceSuite } from '../helpers/suite.js';
import { TEST_API_KEY } from '../helpers/testService.js';

/** Debian's Python, where python3-jsonrpclib-pelix installs (not a pyenv python first on PATH). */
const PYTHON = '/usr/bin/python3';
/** Bound on one Python run, so a client that hangs fails the test. */
const PYTHON_BOUND_MS = 60_000;

const suite = useServiceSuite();

function python(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      ['-c', script],
      { env: { ...process.env, ...env }, timeout: PYTHON_BOUND_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        // A non-zero exit is an answer here (the wrong-key case prints and exits 0; any other
        // failure is shown by the assertions with its stderr).
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** Whether Debian's Python has jsonrpclib (python3-jsonrpclib-pelix). */
async function hasJsonrpclib(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false;
  return (await python('import jsonrpclib', {})).code === 0;
}

/** The whole flow as a jsonrpclib user writes it: dotted method names, keyword params. */
const FLOW = `
import json, os
from jsonrpclib import ServerProxy
rpc = ServerProxy(os.environ["RPC_URL"], headers={"x-api-key": os.environ["RPC_KEY"]})
sid = rpc.session.create()["session_id"]
try:
    rpc.page.goto(session_id=sid, url=os.environ["PAGE_URL"])
    text = rpc.page.text(session_id=sid, selector="main")["text"]
finally:
    closed = rpc.session.close(session_id=sid)
print(json.dumps({"text": text, "closed": closed}))
`;

const WRONG_KEY = `
import json, os
from jsonrpclib import ServerProxy
from jsonrpclib.jsonrpc import TransportError
rpc = ServerProxy(os.environ["RPC_URL"], headers={"x-api-key": "not-the-key"})
try:
    rpc.session.list()
    print(json.dumps({"error": None}))
except TransportError as error:
    url, status, reason = error.args[0], error.args[1], error.args[2]
    print(json.dumps({"error": type(error).__name__, "status": status, "reason": reason}))
`;

describe('python3-jsonrpclib-pelix (Debian) on POST /rpc', () => {
  it(
    'creates a session, navigates, reads the text and closes it; a wrong key is its TransportError 401',
    async () => {
      if (!(await hasJsonrpclib())) {
        if (process.env.CI === 'true')
          throw new Error(`${PYTHON} cannot import jsonrpclib: install python3-jsonrpclib-pelix`);
        console.warn(`skipped: install python3-jsonrpclib-pelix (apt-get install python3-jsonrpclib-pelix)`);
        return;
      }
      const env = {
        RPC_URL: `${suite.service.url}/rpc`,
        RPC_KEY: TEST_API_KEY,
        PAGE_URL: `${suite.fixture.url}/targets`,
      };
      const flow = await python(FLOW, env);
      expect(flow.code, flow.err).toBe(0);
      const result = JSON.parse(flow.out) as { text: string; closed: unknown };
      expect(result.text).toContain('Targets');
      expect(result.closed).toBeDefined();
      expect(await suite.service.call('session.list')).toEqual({ sessions: [] });

      const wrong = await python(WRONG_KEY, env);
      expect(wrong.code, wrong.err).toBe(0);
      // jsonrpclib discards the body of any answer that is not 200: what its user sees is the status.
      expect(JSON.parse(wrong.out)).toEqual({ error: 'TransportError', status: 401, reason: 'Unauthorized' });
    },
    2 * PYTHON_BOUND_MS,
  );
});

describe('JSON-RPC media types on POST /rpc', () => {
  const LIST = JSON.stringify({ jsonrpc: '2.0', id: 'm', method: 'session.list' });

  it.each(['application/json-rpc', 'application/jsonrequest', 'application/json-rpc; charset=utf-8'])(
    '%s is accepted',
    async (type) => {
      const reply = await suite.service.post(LIST, { 'content-type': type });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ id: 'm', result: { sessions: [] } });
    },
  );

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json-rpcx', 'text/json-rpc'])(
    '%s is still 415',
    async (type) => {
      const reply = await suite.service.post(LIST, { 'content-type': type });
      expect(reply.status).toBe(415);
      expect(reply.body).toMatchObject({ id: null, error: { code: -32600 } });
    },
  );
});
