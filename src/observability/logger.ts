import { pino, type Logger, type DestinationStream } from 'pino';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { scrubValue } from './scrub.js';

export type { Logger };

/**
 * Paths pino blanks before a line is written. Secrets (API keys, agent secret keys, model api_keys,
 * cookies, storage state) must never reach a log line, whatever the caller sent.
 */
export const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'secretKey',
  'password',
  'cookie',
  'cookies',
  'storageState',
  'secrets',
  'authorization',
  '*.apiKey',
  '*.api_key',
  '*.secretKey',
  '*.password',
  '*.cookies',
  '*.storageState',
  '*.secrets',
  '*.*.api_key',
  '*.*.apiKey',
  // Agent hub: evaluate params carry model.<tier>.api_key, configure_llm params an apiKey, register a secretKey.
  '*.*.*.api_key',
  '*.*.*.apiKey',
  'model.*.api_key',
  '*.model.*.api_key',
  '*.*.model.*.api_key',
  '*.*.secretKey',
  '*.*.*.secretKey',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  // body-parser attaches the raw request text to its errors: whatever the caller sent, secrets included.
  'err.body',
  '*.err.body',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'playwright-jsonrpc' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // URLs lose userinfo and query values, free text is cut: whatever a line carries (scrub.ts).
      formatters: { log: (object) => scrubValue(object) as Record<string, unknown> },
      // The formatter already turned errors into plain { type, message, stack }.
      serializers: { err: (err: unknown) => err },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * Where the service's log lines go: stdout, and with LOG_FILES also `dir`/combined.log (every line)
 * and `dir`/error.log (error and above), appended, the directory made if need be.
 */
export function logDestination(files: { dir: string } | undefined): DestinationStream {
  if (files === undefined) return pino.destination(1);
  mkdirSync(files.dir, { recursive: true });
  return pino.multistream([
    { level: 'trace', stream: pino.destination(1) },
    {
      level: 'trace',
      stream: pino.destination({ dest: join(files.dir, 'combined.log'), append: true, mkdir: true }),
    },
    {
      level: 'error',
      stream: pino.destination({ dest: join(files.dir, 'error.log'), append: true, mkdir: true }),
    },
  ]);
}
