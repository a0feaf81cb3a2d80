// config/: every configuration key (configKeys.ts and one table per concern) and loadConfig, which reads them.
// Over 350 lines on purpose: loadConfig reads every key the service has, one after another with its
// check, so the whole configuration is one readable function; groups of keys with their own loaders
// live in config*.ts beside it (caps, idempotency, live streams, pool, replicas, browser tier, UI,
// trusted proxies).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadBodyCaps, type BodyCaps } from './configCaps.js';
import { loadBrowserTierConfig, type BrowserTierConfig } from './configBrowserTier.js';
import { loadIdempotencyConfig, type IdempotencyConfig } from './configIdempotency.js';
import { loadPoolConfig, type PoolConfig } from './configPool.js';
import { loadProxyConfig, type ProxyConfig } from './configProxies.js';
import { CONFIG_DEFAULTS, type ConfigKey } from './configKeys.js';
import { loadLiveConfig, type LiveConfig } from './configLive.js';
import { loadReplicaConfig, type ReplicaConfig } from './configReplicas.js';
import { loadUiConfig, type UiConfig } from './configUi.js';

/**
 * Validated configuration. Read once, in one place; a bad value stops start-up naming the variable.
 * The body caps (MAX_NETWORK_BODY_BYTES …) are BodyCaps' (configCaps.ts).
 */
export interface Config
  extends
    BodyCaps,
    IdempotencyConfig,
    LiveConfig,
    UiConfig,
    ReplicaConfig,
    PoolConfig,
    BrowserTierConfig,
    ProxyConfig {
  port: number;
  host: string;
  /**
   * Accepted API keys: API_KEY's, then ADMIN_API_KEY when set. Empty only until main.ts generates
   * one: the service never runs open.
   */
  apiKeys: string[];
  /** ADMIN_API_KEY: accepted too (it is in apiKeys), and reaches every key's sessions. */
  adminApiKey: string | undefined;
  allowHostRegex: RegExp;
  sessionTtlMs: number;
  janitorIntervalMs: number;
  maxSessions: number;
  /** MAX_SESSIONS_PER_KEY, resolved: the configured value, or MAX_SESSIONS shared among API_KEY's keys. */
  maxSessionsPerKey: number;
  poolRefillIdleMs: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
  bodyLimit: string;
  /** BODY_LIMIT in bytes (k and m are 1024 and 1024², as body-parser reads them). */
  bodyLimitBytes: number;
  batchMax: number;
  maxRpcSocketsPerKey: number;
  maxRpcSocketsPerAddress: number;
  /** The names a request's Host may carry (any port): loopback, HOST, ALLOWED_HOSTS. */
  allowedHosts: string[];
  headless: boolean;
  chromiumPath: string | undefined;
  logLevel: string;
  logDir: string;
  /** LOG_FILES: the log lines also in LOG_DIR/combined.log and (errors) LOG_DIR/error.log. */
  logFiles: boolean;
  /** AGENT_SECRET. Unset only until main.ts generates one: the hub refuses every agent without it. */
  agentSecret: string | undefined;
  cdpUrl: string | undefined;
  agentAllowedOrigins: string[];
  agentMaxPayloadBytes: number;
  agentPingIntervalMs: number;
  agentConnectionTimeoutMs: number;
  agentReconnectGraceMs: number;
  agentQueueTimeoutMs: number;
  agentEvaluationTimeoutMs: number;
  cdpTimeoutMs: number;
  consoleBufferSize: number;
  networkBufferSize: number;
  /** MAX_SESSION_EVENTS: entries each session's event log keeps. */
  maxSessionEvents: number;
  /** REPLAY, REPLAY_KEEP_MS, MAX_REPLAY_BYTES: pictures after each action, and what a closed session leaves. */
  replay: { pictures: boolean; keepMs: number; maxBytes: number };
  /** FFMPEG_PATH: the ffmpeg replay.video runs; undefined looks on PATH. */
  ffmpegPath: string | undefined;
  /** PAGE_EVENT_RATE, PAGE_EVENT_BURST, PAGE_THROTTLE_AFTER_MS, PAGE_THROTTLE_RATE. */
  pageBudget: { rate: number; burst: number; throttleAfterMs: number; throttleRate: number };
  settleQuietMs: number;
  settleBodyGraceMs: number;
  settleMaxPendingMs: number;
  actionSettleMs: number;
  maxHtmlChars: number;
  /** MAX_DOWNLOAD_BYTES, MAX_SESSION_DOWNLOAD_BYTES, MAX_SESSION_DOWNLOADS: a session's download store. */
  maxDownloadBytes: number;
  maxSessionDownloadBytes: number;
  maxSessionDownloads: number;
  /** MAX_PDF_BYTES, MAX_TRACE_INLINE_BYTES, MAX_SESSION_TRACE_BYTES, MAX_FAILURE_TRACES: page.pdf and trace.*. */
  maxPdfBytes: number;
  maxTraceInlineBytes: number;
  maxSessionTraceBytes: number;
  maxFailureTraces: number;
  /** MAX_UPLOAD_BYTES, resolved: the configured value, or the decoded size BODY_LIMIT lets through. */
  maxUploadBytes: number;
  maxScreenshotBytes: number;
  maxEvaluateResultChars: number;
  evaluateTimeoutMs: number;
  sessionCloseTimeoutMs: number;
  browserLaunchTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** MEMORY_HIGH_WATER_MB; 0 means the default share of the heap limit. */
  memoryHighWaterMb: number;
}

/** Names that always reach the service: a rebinding page's own name is never one of them. */
export const LOOPBACK_HOST_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/**
 * The names a request's Host may carry: the loopback names, HOST when it names one address (not a
 * wildcard bind), and ALLOWED_HOSTS. IPv6 addresses are kept in brackets, as Host writes them.
 */
export function allowedHostNames(bindHost: string, extra: readonly string[]): string[] {
  const names = new Set<string>(LOOPBACK_HOST_NAMES);
  const bind = bindHost.trim().toLowerCase();
  if (bind !== '' && bind !== '0.0.0.0' && bind !== '::' && bind !== '[::]')
    names.add(bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind);
  for (const name of extra) names.add(name);
  return [...names];
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Source = Partial<Record<string, string | undefined>>;

/**
 * Replaces `${NAME}` in a YAML value of `key` with the environment's NAME, and `${NAME:-default}`
 * with it or, when NAME is unset or empty, the default. A `${NAME}` whose NAME is unset is an error:
 * a typo in `${API_KEY}` must not quietly become an empty value (and a generated key).
 */
export function substituteEnv(value: string, env: Source, key = 'CONFIG_FILE'): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback: string | undefined) => {
      const set = env[name];
      if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
      if (set === undefined)
        throw new ConfigError(
          key,
          `\${${name}} in the config file is not set in the environment: set ${name}, or write \${${name}:-default} for a default (\${${name}:-} for none)`,
        );
      return set;
    },
  );
}

/** The config file read when CONFIG_FILE is not set at all (an empty CONFIG_FILE reads none). */
export const DEFAULT_CONFIG_FILE = 'playwright-jsonrpc.yaml';

function readConfigFile(path: string, env: Source): Source {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('CONFIG_FILE', `cannot read ${path}: ${(error as Error).message}`);
  }
  const doc: unknown = parseYaml(text);
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError('CONFIG_FILE', `${path} must be a mapping of KEY: value`);
  }
  const out: Source = {};
  for (const [key, raw] of Object.entries(doc)) {
    if (!(key in CONFIG_DEFAULTS)) {
      throw new ConfigError(
        'CONFIG_FILE',
        `unknown key ${key}; expected one of ${Object.keys(CONFIG_DEFAULTS).join(', ')}`,
      );
    }
    if (raw === null || typeof raw === 'object')
      throw new ConfigError(key, 'must be a scalar in the config file');
    out[key] = substituteEnv(String(raw), env, key);
  }
  return out;
}

function int(name: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** Environment variables win over the YAML file (CONFIG_FILE), which wins over the defaults. */
export function loadConfig(env: Source = process.env, cwd = process.cwd()): Config {
  const byDefault = join(cwd, DEFAULT_CONFIG_FILE);
  const path = env.CONFIG_FILE ?? (existsSync(byDefault) ? byDefault : undefined);
  const file = path ? readConfigFile(path, env) : {};
  const get = (key: ConfigKey): string => {
    const fromEnv = env[key];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const fromFile = file[key];
    if (fromFile !== undefined && fromFile !== '') return fromFile;
    return CONFIG_DEFAULTS[key];
  };

  let allowHostRegex: RegExp;
  try {
    allowHostRegex = new RegExp(get('ALLOW_HOST_REGEX'));
  } catch (error) {
    throw new ConfigError('ALLOW_HOST_REGEX', `not a valid regular expression: ${(error as Error).message}`);
  }
  const bodyLimit = get('BODY_LIMIT');
  const bodyLimitParts = /^(\d+)(b|kb|mb)?$/i.exec(bodyLimit);
  if (bodyLimitParts === null)
    throw new ConfigError('BODY_LIMIT', `must look like 512kb, got "${bodyLimit}"`);
  const unit = { b: 1, kb: 1024, mb: 1024 * 1024 }[
    (bodyLimitParts[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'
  ];
  const bodyLimitBytes = Number(bodyLimitParts[1]) * unit;
  // 0 would refuse every HTTP body, and ws reads a 0 maxPayload as no limit at all.
  if (bodyLimitBytes < 1) throw new ConfigError('BODY_LIMIT', `must be at least 1 byte, got "${bodyLimit}"`);
  // A page.upload arrives as base64 (4 characters for 3 bytes) inside a JSON body of at most BODY_LIMIT.
  const uploadFits = Math.floor((bodyLimitBytes * 3) / 4);
  const uploadRaw = get('MAX_UPLOAD_BYTES');
  const maxUploadBytes =
    uploadRaw.trim() === '' ? uploadFits : int('MAX_UPLOAD_BYTES', uploadRaw, 1, 1024 * 1024 * 1024);
  if (maxUploadBytes > uploadFits)
    throw new ConfigError(
      'MAX_UPLOAD_BYTES',
      `${maxUploadBytes} bytes do not fit in BODY_LIMIT (${bodyLimit}) as base64; raise BODY_LIMIT to at least ${Math.ceil((maxUploadBytes * 4) / 3)} bytes, or lower MAX_UPLOAD_BYTES to ${uploadFits}`,
    );
  const logLevel = get('LOG_LEVEL');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`,
    );
  }
  const cdpUrl = get('CDP_URL') || undefined;
  if (cdpUrl !== undefined && !/^(https?|wss?):\/\//.test(cdpUrl)) {
    throw new ConfigError('CDP_URL', `must be an http(s):// or ws(s):// URL, got "${cdpUrl}"`);
  }

  const agentAllowedOrigins = get('AGENT_ALLOWED_ORIGINS')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o.length > 0);
  for (const origin of agentAllowedOrigins) {
    if (
      !URL.canParse(origin) ||
      new URL(origin).origin === 'null' ||
      new URL(origin).origin !== origin.replace(/\/$/, '')
    ) {
      throw new ConfigError(
        'AGENT_ALLOWED_ORIGINS',
        `each entry must be an origin like http://localhost:8080 (scheme, host, port; no path), got "${origin}"`,
      );
    }
  }
  const agentPingIntervalMs = int('AGENT_PING_INTERVAL_MS', get('AGENT_PING_INTERVAL_MS'), 10, 3_600_000);
  const agentConnectionTimeoutMs = int(
    'AGENT_CONNECTION_TIMEOUT_MS',
    get('AGENT_CONNECTION_TIMEOUT_MS'),
    20,
    7_200_000,
  );
  if (agentConnectionTimeoutMs <= agentPingIntervalMs) {
    throw new ConfigError(
      'AGENT_CONNECTION_TIMEOUT_MS',
      `must be greater than AGENT_PING_INTERVAL_MS (${agentPingIntervalMs}), or live agents are cut between two pings`,
    );
  }

  const apiKeys = get('API_KEY')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
  const adminApiKey = get('ADMIN_API_KEY').trim() || undefined;
  if (adminApiKey !== undefined && (apiKeys.includes(adminApiKey) || adminApiKey.includes(','))) {
    // A key is a tenant or the operator, never both; a comma would read as two keys elsewhere.
    throw new ConfigError(
      'ADMIN_API_KEY',
      'must be a single key that differs from every API_KEY key (the value is not shown)',
    );
  }
  const maxSessions = int('MAX_SESSIONS', get('MAX_SESSIONS'), 1, 1000);
  const perKey = get('MAX_SESSIONS_PER_KEY');
  const maxSessionsPerKey =
    perKey.trim() === ''
      ? Math.ceil(maxSessions / Math.max(1, new Set(apiKeys).size))
      : int('MAX_SESSIONS_PER_KEY', perKey, 1, 1000);
  const allowedHosts = get('ALLOWED_HOSTS')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h.length > 0);
  for (const name of allowedHosts) {
    if (!/^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(name)) {
      throw new ConfigError(
        'ALLOWED_HOSTS',
        `each entry must be a host name or address without scheme or port (an IPv6 address in brackets), got "${name}"`,
      );
    }
  }

  return {
    port: int('PORT', get('PORT'), 0, 65535),
    host: get('HOST'),
    apiKeys: adminApiKey === undefined ? apiKeys : [...apiKeys, adminApiKey],
    adminApiKey,
    allowHostRegex,
    sessionTtlMs: int('SESSION_TTL_MS', get('SESSION_TTL_MS'), 100),
    janitorIntervalMs: int('JANITOR_INTERVAL_MS', get('JANITOR_INTERVAL_MS'), 10),
    maxSessions,
    maxSessionsPerKey,
    poolRefillIdleMs: int('POOL_REFILL_IDLE_MS', get('POOL_REFILL_IDLE_MS'), 0, 600_000),
    ...loadPoolConfig(
      (key, min, max) => int(key, get(key), min, max),
      (key, message) => new ConfigError(key, message),
    ),
    rateLimitMax: int('RATE_LIMIT_MAX', get('RATE_LIMIT_MAX'), 1),
    rateLimitWindowMs: int('RATE_LIMIT_WINDOW_MS', get('RATE_LIMIT_WINDOW_MS'), 100),
    bodyLimit,
    bodyLimitBytes,
    batchMax: int('BATCH_MAX', get('BATCH_MAX'), 1, 10000),
    maxRpcSocketsPerKey: int('MAX_RPC_SOCKETS_PER_KEY', get('MAX_RPC_SOCKETS_PER_KEY'), 1, 100_000),
    allowedHosts: allowedHostNames(get('HOST'), allowedHosts),
    maxRpcSocketsPerAddress: int(
      'MAX_RPC_SOCKETS_PER_ADDRESS',
      get('MAX_RPC_SOCKETS_PER_ADDRESS'),
      1,
      100_000,
    ),
    headless: bool('HEADLESS', get('HEADLESS')),
    chromiumPath: get('CHROMIUM_PATH') || undefined,
    logLevel,
    logDir: get('LOG_DIR'),
    logFiles: bool('LOG_FILES', get('LOG_FILES')),
    agentSecret: get('AGENT_SECRET') || undefined,
    cdpUrl,
    agentAllowedOrigins,
    agentMaxPayloadBytes: int('AGENT_MAX_PAYLOAD_BYTES', get('AGENT_MAX_PAYLOAD_BYTES'), 1024, 104_857_600),
    agentPingIntervalMs,
    agentConnectionTimeoutMs,
    agentReconnectGraceMs: int('AGENT_RECONNECT_GRACE_MS', get('AGENT_RECONNECT_GRACE_MS'), 0, 3_600_000),
    agentQueueTimeoutMs: int('AGENT_QUEUE_TIMEOUT_MS', get('AGENT_QUEUE_TIMEOUT_MS'), 0, 3_600_000),
    agentEvaluationTimeoutMs: int(
      'AGENT_EVALUATION_TIMEOUT_MS',
      get('AGENT_EVALUATION_TIMEOUT_MS'),
      1,
      900_000,
    ),
    cdpTimeoutMs: int('CDP_TIMEOUT_MS', get('CDP_TIMEOUT_MS'), 100, 600_000),
    consoleBufferSize: int('CONSOLE_BUFFER_SIZE', get('CONSOLE_BUFFER_SIZE'), 1, 1_000_000),
    networkBufferSize: int('NETWORK_BUFFER_SIZE', get('NETWORK_BUFFER_SIZE'), 1, 1_000_000),
    maxSessionEvents: int('MAX_SESSION_EVENTS', get('MAX_SESSION_EVENTS'), 1, 1_000_000),
    replay: {
      pictures: bool('REPLAY', get('REPLAY')),
      keepMs: int('REPLAY_KEEP_MS', get('REPLAY_KEEP_MS'), 0, 86_400_000),
      maxBytes: int('MAX_REPLAY_BYTES', get('MAX_REPLAY_BYTES'), 0, 1_073_741_824),
    },
    ffmpegPath: get('FFMPEG_PATH') || undefined,
    pageBudget: {
      rate: int('PAGE_EVENT_RATE', get('PAGE_EVENT_RATE'), 1, 1_000_000),
      burst: int('PAGE_EVENT_BURST', get('PAGE_EVENT_BURST'), 1, 1_000_000),
      throttleAfterMs: int('PAGE_THROTTLE_AFTER_MS', get('PAGE_THROTTLE_AFTER_MS'), 0, 3_600_000),
      throttleRate: int('PAGE_THROTTLE_RATE', get('PAGE_THROTTLE_RATE'), 1, 100),
    },
    settleQuietMs: int('SETTLE_QUIET_MS', get('SETTLE_QUIET_MS'), 0, 60_000),
    settleBodyGraceMs: int('SETTLE_BODY_GRACE_MS', get('SETTLE_BODY_GRACE_MS'), 0, 600_000),
    settleMaxPendingMs: int('SETTLE_MAX_PENDING_MS', get('SETTLE_MAX_PENDING_MS'), 0, 600_000),
    actionSettleMs: int('ACTION_SETTLE_MS', get('ACTION_SETTLE_MS'), 0, 60_000),
    maxHtmlChars: int('MAX_HTML_CHARS', get('MAX_HTML_CHARS'), 1),
    maxDownloadBytes: int('MAX_DOWNLOAD_BYTES', get('MAX_DOWNLOAD_BYTES'), 1),
    maxSessionDownloadBytes: int('MAX_SESSION_DOWNLOAD_BYTES', get('MAX_SESSION_DOWNLOAD_BYTES'), 1),
    maxSessionDownloads: int('MAX_SESSION_DOWNLOADS', get('MAX_SESSION_DOWNLOADS'), 0, 100_000),
    maxPdfBytes: int('MAX_PDF_BYTES', get('MAX_PDF_BYTES'), 1),
    maxTraceInlineBytes: int('MAX_TRACE_INLINE_BYTES', get('MAX_TRACE_INLINE_BYTES'), 0, 64 * 1024 * 1024),
    maxSessionTraceBytes: int('MAX_SESSION_TRACE_BYTES', get('MAX_SESSION_TRACE_BYTES'), 1),
    maxFailureTraces: int('MAX_FAILURE_TRACES', get('MAX_FAILURE_TRACES'), 1, 1000),
    ...loadBodyCaps(
      (key, min, max) => int(key, get(key), min, max),
      (key, message) => new ConfigError(key, message),
    ),
    ...loadIdempotencyConfig(
      (key, min, max) => int(key, get(key), min, max),
      (key, message) => new ConfigError(key, message),
    ),
    ...loadLiveConfig((key, min, max) => int(key, get(key), min, max)),
    ...loadUiConfig(get, (key, message) => new ConfigError(key, message)),
    ...loadProxyConfig(get, (key, message) => new ConfigError(key, message)),
    ...loadReplicaConfig(
      get,
      (key, min, max) => int(key, get(key), min, max),
      (key, message) => new ConfigError(key, message),
    ),
    ...loadBrowserTierConfig(get, maxSessions, (key, message) => new ConfigError(key, message)),
    maxUploadBytes,
    maxScreenshotBytes: int('MAX_SCREENSHOT_BYTES', get('MAX_SCREENSHOT_BYTES'), 1),
    maxEvaluateResultChars: int('MAX_EVALUATE_RESULT_CHARS', get('MAX_EVALUATE_RESULT_CHARS'), 1),
    evaluateTimeoutMs: int('EVALUATE_TIMEOUT_MS', get('EVALUATE_TIMEOUT_MS'), 1),
    sessionCloseTimeoutMs: int('SESSION_CLOSE_TIMEOUT_MS', get('SESSION_CLOSE_TIMEOUT_MS'), 1),
    browserLaunchTimeoutMs: int('BROWSER_LAUNCH_TIMEOUT_MS', get('BROWSER_LAUNCH_TIMEOUT_MS'), 1000),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', get('SHUTDOWN_TIMEOUT_MS'), 1),
    memoryHighWaterMb: int('MEMORY_HIGH_WATER_MB', get('MEMORY_HIGH_WATER_MB'), 0),
  };
}
