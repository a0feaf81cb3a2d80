import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../config/config.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { BrowserNotFoundError, startService, type RunningService } from '../service.js';
import { logUnhandledRejection } from './serve.js';

/** Exit codes as `serve` gives them, so a supervisor reads both commands alike. */
export const EXIT_CONFIG = 2;
export const EXIT_NO_BROWSER = 3;
export const EXIT_START_FAILED = 1;

/** Only this process may reach the in-process service: loopback, a port the system picks. */
const LOOPBACK = '127.0.0.1';
const ANY_FREE_PORT = '0';

/** The service started inside `playwright-jsonrpc mcp`, and how the stdio bridge reaches it. */
export interface InProcessService {
  /** The loopback base URL of its HTTP listener. */
  base: URL;
  /** The key the bridge sends: made for this run, never printed. */
  key: string;
  logger: Logger;
  running: RunningService;
  /** How long closing may take before the process gives up (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
}

/**
 * Starts the service as `serve` does (the same loadConfig, environment and CONFIG_FILE: browser,
 * allow-list, limits), except where it listens and who may call it: 127.0.0.1 on a free port, with
 * one random key that only the bridge in this process knows. API_KEY and ADMIN_API_KEY are not
 * used (no other client can learn the port's key, so there is nothing for them to guard), and
 * neither is a placeholder of them. Every log line goes to stderr: stdout carries MCP frames only.
 * Answers the exit code instead when the service cannot start.
 */
export async function startInProcessService(env: NodeJS.ProcessEnv): Promise<InProcessService | number> {
  const key = randomBytes(24).toString('base64url');
  let config;
  try {
    config = loadConfig({ ...env, API_KEY: key, HOST: LOOPBACK, PORT: ANY_FREE_PORT });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`playwright-jsonrpc mcp: configuration error: ${error.message}\n`);
      return EXIT_CONFIG;
    }
    throw error;
  }
  config.apiKeys = [key];
  config.adminApiKey = undefined;
  // Agents register on this listener's /agents; without a secret any local process could. None is
  // printed: the agent hub is for `serve`, whose port and secret an agent can be given.
  config.agentSecret ??= randomBytes(24).toString('base64url');
  // Synchronous, so that the last lines before an exit are not lost.
  const logger = createLogger(config.logLevel, pino.destination({ dest: 2, sync: true }));
  let running;
  try {
    running = await startService(config, logger);
  } catch (error) {
    if (error instanceof BrowserNotFoundError) {
      process.stderr.write(`playwright-jsonrpc mcp: ${error.message}\n`);
      return EXIT_NO_BROWSER;
    }
    logger.fatal({ err: error }, 'start-up failed');
    return EXIT_START_FAILED;
  }
  process.on('unhandledRejection', logUnhandledRejection(logger));
  logger.info(
    { url: running.url },
    `playwright-jsonrpc mcp: the service runs in this process (loopback ${running.url}); MCP on stdio`,
  );
  return {
    base: new URL(running.url),
    key,
    logger,
    running,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  };
}
