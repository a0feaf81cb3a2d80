import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { wideTrustWarning } from '../config/configProxies.js';
import { createLogger, logDestination, type Logger } from '../observability/logger.js';
import { loadDotEnv } from './dotEnv.js';
import { BrowserNotFoundError, startService } from '../service.js';
import { watchParent } from './parentWatch.js';
import { lookAtProcess } from './processIdentity.js';
import { StopRefusedError, stopRecorded } from './restart.js';
import {
  newRecordToken,
  removeServiceRecord,
  ServiceRecordError,
  stateDir,
  writeServiceRecord,
} from './serviceRecord.js';

/** Exit codes a supervisor can act on. */
const EXIT_CONFIG = 2;
const EXIT_NO_BROWSER = 3;
const EXIT_START_FAILED = 1;

/**
 * What a rejection no code handled does: it is logged (scrubbed like every line), and the service,
 * shared by every tenant's sessions, keeps running rather than dying with Node's default. Seen once:
 * Playwright's trace zip rejected an internal promise when a file it was packing was deleted.
 */
export function logUnhandledRejection(logger: Logger): (reason: unknown) => void {
  return (reason) => logger.error({ err: reason }, 'unhandled promise rejection; the service keeps running');
}

export interface ServeOptions {
  /**
   * Stop (the same graceful path as SIGTERM) when the process that started this one goes away.
   * On for `npm start` and `playwright-jsonrpc serve`, where the parent is npm, npx or a shell whose
   * death should end the service; off for `node dist/src/main.js`, which a supervisor (systemd,
   * Docker's init, pm2) or a deliberate `nohup … &` runs, where outliving the shell is the point.
   */
  exitWithParent: boolean;
  /**
   * Keep a record of this service (pid, port, start) while it listens, for `serve --restart` and
   * `stop`. The CLI's serve does; the supervisors' entry (`node dist/src/main.js`) does not: its
   * supervisor restarts it, and a second service started beside it would find the port taken.
   */
  record?: boolean;
  /** First stop the service recorded for the configured PORT (`serve --restart`). */
  restart?: boolean;
}

/**
 * The start-up warnings about who can reach the service or speak for its clients: a bind beyond
 * loopback, and a TRUSTED_PROXIES wide enough that hosts other than the balancers may name a client.
 */
export function warnOfExposure(config: Pick<Config, 'host' | 'trustedProxies'>, logger: Logger): void {
  if (config.host !== '127.0.0.1' && config.host !== 'localhost' && config.host !== '::1') {
    logger.warn(
      { host: config.host },
      'binding beyond loopback: the service is reachable from other machines; keep the API key secret',
    );
  }
  const trust = wideTrustWarning(config.trustedProxies);
  if (trust !== undefined) logger.warn({ trustedProxies: config.trustedProxies }, trust);
}

/** Where a new user goes first: the web console, the MCP endpoint and JSON-RPC (POST and WebSocket). */
export function frontDoorUrls(base: string): { console: string; mcp: string; rpc: string } {
  return { console: `${base}/ui/`, mcp: `${base}/mcp`, rpc: `${base}/rpc` };
}

/** The start line: the address, and the front-door URLs so the first thing to open is on screen. */
export function startLine(base: string): string {
  const urls = frontDoorUrls(base);
  return `playwright-jsonrpc listening on ${base}: console ${urls.console}, MCP ${urls.mcp}, JSON-RPC ${urls.rpc} (POST or WebSocket)`;
}

/**
 * Records the listening service for `serve --restart` and `stop`; answers the function that removes
 * the record at exit. A record that cannot be written is logged: the service runs without it.
 */
function recordService(port: number, config: Config, logger: Logger): () => void {
  const self = lookAtProcess(process.pid);
  if (self.kind !== 'alive') {
    logger.warn('no service record: this system cannot identify processes (no /proc, no ps)');
    return () => undefined;
  }
  const dir = stateDir();
  const token = newRecordToken();
  try {
    const path = writeServiceRecord(dir, {
      pid: process.pid,
      port,
      host: config.host,
      startedAt: new Date().toISOString(),
      processStart: self.start,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
      token,
    });
    logger.debug({ path }, 'service recorded for serve --restart and stop');
  } catch (error) {
    logger.warn({ err: error }, 'could not record the service; serve --restart and stop will not find it');
    return () => undefined;
  }
  return () => {
    try {
      removeServiceRecord(dir, port, token);
    } catch (error) {
      logger.warn({ err: error }, 'could not remove the service record; the next --restart finds it stale');
    }
  };
}

/**
 * `serve --restart`: stops the service recorded for the configured PORT (once the new configuration
 * has loaded, so a broken one leaves the old service running). Exits the process when it cannot.
 */
async function stopPrevious(config: Config): Promise<void> {
  const say = (line: string): void => {
    process.stderr.write(`playwright-jsonrpc serve --restart: ${line}\n`);
  };
  if (config.port === 0) {
    say('PORT is 0 (a free port each run), so there is no service to find: set PORT');
    process.exit(EXIT_CONFIG);
  }
  try {
    const stopped = await stopRecorded(stateDir(), config.port, config.host, say);
    say(stopped ? 'starting the new service' : 'starting the service as usual');
  } catch (error) {
    if (!(error instanceof StopRefusedError || error instanceof ServiceRecordError)) throw error;
    say(`${error.message}\nNo new service was started.`);
    process.exit(EXIT_START_FAILED);
  }
}

/** Loads the configuration, starts the service, and stops it on SIGTERM, SIGINT or (opt-in) orphaning. */
export async function serve(options: ServeOptions): Promise<void> {
  let config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    throw error;
  }
  if (options.restart === true) await stopPrevious(config);
  const logger = createLogger(
    config.logLevel,
    logDestination(config.logFiles ? { dir: config.logDir } : undefined),
  );
  if (config.apiKeys.length === 0) {
    // Never run open: make a key, print it once on stderr (not through the logger), and warn.
    const key = randomBytes(24).toString('base64url');
    config.apiKeys = [key];
    process.stderr.write(
      `\nNo API_KEY set: generated one for this run. Send it as the x-api-key header:\n\n  API_KEY=${key}\n\n`,
    );
    logger.warn('API_KEY was not set; a random key was generated for this run (printed once on stderr)');
  }
  if (config.agentSecret === undefined) {
    // Same for the agent hub: without a secret any local process could register as an agent and be
    // routed callers' evaluations (model api_keys included).
    const secret = randomBytes(24).toString('base64url');
    config.agentSecret = secret;
    process.stderr.write(
      `\nNo AGENT_SECRET set: generated one for this run. Agents send it as secretKey in register:\n\n  AGENT_SECRET=${secret}\n\n`,
    );
    logger.warn(
      'AGENT_SECRET was not set; a random agent secret was generated for this run (printed once on stderr)',
    );
  }
  warnOfExposure(config, logger);

  let running;
  try {
    running = await startService(config, logger);
  } catch (error) {
    if (error instanceof BrowserNotFoundError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(EXIT_NO_BROWSER);
    }
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(EXIT_START_FAILED);
  }
  const urls = frontDoorUrls(running.url);
  logger.info({ url: running.url, ...urls }, startLine(running.url));
  process.on('unhandledRejection', logUnhandledRejection(logger));
  const forget = options.record === true ? recordService(running.port, config, logger) : () => undefined;

  let stopping = false;
  let stopWatching = (): void => undefined;
  const shutdown = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    stopWatching();
    logger.info({ signal: reason }, 'shutting down: closing sessions and the browser');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      forget();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    // The record goes last: until the port is free, a --restart must still find this service.
    running.close().then(
      () => {
        forget();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        forget();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (options.exitWithParent) {
    stopWatching = watchParent((formerParent) => {
      logger.warn({ formerParent }, 'the process that started the service exited; stopping');
      shutdown('parent-exit');
    });
  }
}
