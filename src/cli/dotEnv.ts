// `.env` of the working directory, read into the environment before the configuration is loaded
// (serve, and mcp without a URL): KEY=value lines, as `.env.example` shows. A variable already set
// in the environment wins over the file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The file read, in the working directory. */
export const DOT_ENV_FILE = '.env';

/** Loads `.env` from `cwd` when there is one; answers the path it read, or undefined. */
export function loadDotEnv(cwd = process.cwd()): string | undefined {
  const path = join(cwd, DOT_ENV_FILE);
  if (!existsSync(path)) return undefined;
  // Node's own parser (20.12+): variables already set are not overwritten.
  process.loadEnvFile(path);
  return path;
}
