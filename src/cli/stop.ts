// `playwright-jsonrpc stop`: stops the service `serve` started on a port, found by its record.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/config.js';
import { EXIT_USAGE } from './call.js';
import { loadDotEnv } from './dotEnv.js';
import { StopRefusedError, stopRecorded } from './restart.js';
import { ServiceRecordError, STATE_DIR_ENV, stateDir } from './serviceRecord.js';
import { UsageError } from './serviceUrl.js';

/** Exit code of a stop that was refused or did not finish (nothing was killed). */
export const EXIT_STOP_FAILED = 1;

export const STOP_HELP = `Usage: playwright-jsonrpc stop [--port PORT]

Stops the service that "playwright-jsonrpc serve" runs on PORT: SIGTERM (it closes every session
and the browser), then waits until the process has exited and the port is free. The service is
found by the record serve keeps while it listens, in $${STATE_DIR_ENV} (default: a directory
playwright-jsonrpc-<uid> in the system's temporary directory). A recorded pid that is no longer
that serve process is never signalled.

Options:
  --port PORT   the service's port (default: PORT as serve reads it: the environment, .env,
                CONFIG_FILE or playwright-jsonrpc.yaml; 3337 when none sets it)
  -h, --help    this help

Exit codes: 0 stopped, or no service was recorded for the port; 1 the recorded pid is not the
service, or it did not exit in time (it is left running); 2 bad command line or configuration.
`;

const MAX_PORT = 65_535;

/** The port a stop means: --port, else the configuration's PORT. */
function portToStop(flag: string | undefined): number {
  if (flag !== undefined) {
    const port = Number(flag);
    if (!Number.isInteger(port) || port < 1 || port > MAX_PORT)
      throw new UsageError(`--port must be a port number (1-${MAX_PORT})`);
    return port;
  }
  loadDotEnv();
  const { port } = loadConfig();
  if (port === 0) throw new UsageError('PORT is 0 (a free port each run): name the port with --port');
  return port;
}

/** Runs `stop`; answers the process's exit code. */
export async function runStop(argv: string[], stderr: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    process.stdout.write(STOP_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`stop takes no argument ${JSON.stringify(positionals[0])}`);
  const say = (line: string): void => {
    stderr.write(`playwright-jsonrpc stop: ${line}\n`);
  };
  let port: number;
  try {
    port = portToStop(values.port);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(`configuration error: ${error.message}; name the port with --port`);
    return EXIT_USAGE;
  }
  try {
    await stopRecorded(stateDir(), port, undefined, say);
    return 0;
  } catch (error) {
    if (!(error instanceof StopRefusedError || error instanceof ServiceRecordError)) throw error;
    say(error.message);
    return EXIT_STOP_FAILED;
  }
}
