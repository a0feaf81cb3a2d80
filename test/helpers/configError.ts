import { ConfigError, loadConfig } from '../../src/config/config.js';

/** The ConfigError loadConfig throws for `env`; throws itself when loadConfig accepts it or fails otherwise. */
export function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}
