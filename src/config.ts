import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** Validated configuration. Read once, in one place; a bad value stops start-up naming the variable. */
export interface Config {
  port: number;
  host: string;
  /** Accepted API keys. Empty only until main.ts generates one: the service never runs open. */
  apiKeys: string[];
  allowHostRegex: RegExp;
  sessionTtlMs: number;
  janitorIntervalMs: number;
  maxSessions: number;
  poolSize: number;
  poolRefillIdleMs: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
  bodyLimit: string;
  /** BODY_LIMIT in bytes (k and m are 1024 and 1024², as body-parser reads them). */
  bodyLimitBytes: number;
  batchMax: number;
  headless: boolean;
  chromiumPath: string | undefined;
  logLevel: string;
  logDir: string;
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
  settleQuietMs: number;
  settleBodyGraceMs: number;
  settleMaxPendingMs: number;
  maxHtmlChars: number;
  maxScreenshotBytes: number;
  maxEvaluateResultChars: number;
  evaluateTimeoutMs: number;
  sessionCloseTimeoutMs: number;
  browserLaunchTimeoutMs: number;
  shutdownTimeoutMs: number;
}

export const DEFAULT_ALLOW_HOST_REGEX = '^https?://(localhost|127\\.0\\.0\\.1)(:\\d+)?(/|$)';

/** The sections of docs/configuration.md, in the order the page shows them. */
export const CONFIG_GROUPS = {
  http: 'HTTP server, keys and request limits',
  browser: 'Browser and allow-list',
  sessions: 'Sessions',
  pages: 'Page reads, caps and timeouts',
  agents: 'Agent hub (/agents and agents.*)',
  tabs: 'Tabs over CDP (tabs.*)',
  process: 'Logs and process',
} as const;

export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/**
 * Every key a caller may set, as env var names (the YAML file uses the same names): its default,
 * what it does in one line, and its section of docs/configuration.md (generated from this table).
 */
export const CONFIG_KEYS = {
  PORT: { default: '3337', group: 'http', description: 'HTTP port the service listens on.' },
  HOST: {
    default: '127.0.0.1',
    group: 'http',
    description: 'Bind address; anything beyond loopback logs a warning.',
  },
  API_KEY: {
    default: '',
    group: 'http',
    description:
      'Accepted API keys, comma-separated; when unset one is generated and printed once on stderr (the service never runs open).',
  },
  ALLOW_HOST_REGEX: {
    default: DEFAULT_ALLOW_HOST_REGEX,
    group: 'browser',
    description: 'Allow-list, matched against the canonical URL of every request the browser makes.',
  },
  SESSION_TTL_MS: {
    default: '120000',
    group: 'sessions',
    description: 'Idle time (no call) after which the janitor closes a session.',
  },
  JANITOR_INTERVAL_MS: {
    default: '5000',
    group: 'sessions',
    description:
      'How often the janitor looks for idle sessions; a session lives at most SESSION_TTL_MS + this.',
  },
  MAX_SESSIONS: {
    default: '8',
    group: 'sessions',
    description: 'Open sessions at most (pooled contexts and attached tabs count too).',
  },
  POOL_SIZE: {
    default: '2',
    group: 'sessions',
    description:
      'Ready contexts kept so session.create answers at once; refilled in the background; they count against MAX_SESSIONS; 0 turns the pool off.',
  },
  POOL_REFILL_IDLE_MS: {
    default: '150',
    group: 'sessions',
    description:
      'The pool refills only after no call ran for this long: creating a context costs Chromium CPU that would otherwise slow the calls in progress.',
  },
  RATE_LIMIT_MAX: {
    default: '120',
    group: 'http',
    description:
      'Requests per window per IP, and per key (HTTP 429 past it; on the WebSocket, every message counts).',
  },
  RATE_LIMIT_WINDOW_MS: { default: '60000', group: 'http', description: 'Rate-limit window.' },
  BODY_LIMIT: {
    default: '512kb',
    group: 'http',
    description:
      'JSON body cap (HTTP 413 past it; a larger WebSocket message closes the socket with 1009); b, kb or mb.',
  },
  BATCH_MAX: {
    default: '50',
    group: 'http',
    description:
      'Calls per batch: a batch is one HTTP request, so past this many calls it is refused (-32600) and one request cannot hog the browser.',
  },
  HEADLESS: { default: 'true', group: 'browser', description: 'Browser mode (true or false).' },
  CHROMIUM_PATH: {
    default: '',
    group: 'browser',
    description: "The browser binary; when unset, Playwright's download, else the system's Chromium.",
  },
  LOG_LEVEL: {
    default: 'info',
    group: 'process',
    description: 'pino level: fatal, error, warn, info, debug, trace or silent.',
  },
  LOG_DIR: {
    default: 'logs',
    group: 'agents',
    description: 'Where the evaluation log (evaluations.jsonl) is written.',
  },
  AGENT_SECRET: {
    default: '',
    group: 'agents',
    description:
      'Secret every agent register must carry; when unset, the first secret key a clientId registered with is the one needed to take that clientId over.',
  },
  CDP_URL: {
    default: '',
    group: 'tabs',
    description: 'A Chrome started with --remote-debugging-port, for tabs.* (http(s):// or ws(s)://).',
  },
  AGENT_ALLOWED_ORIGINS: {
    default: '',
    group: 'agents',
    description:
      'Comma-separated origins whose pages may connect to /agents; empty: no browser page may (Node agents send no Origin).',
  },
  AGENT_MAX_PAYLOAD_BYTES: {
    default: '4194304',
    group: 'agents',
    description:
      'Largest frame an agent may send (evaluation outputs included); past it the socket closes with 1009.',
  },
  AGENT_PING_INTERVAL_MS: {
    default: '30000',
    group: 'agents',
    description: 'Heartbeat: every agent socket is pinged this often (seed 001: 30 s).',
  },
  AGENT_CONNECTION_TIMEOUT_MS: {
    default: '60000',
    group: 'agents',
    description:
      'A socket silent (no frame, no pong) for longer than this is cut; must exceed AGENT_PING_INTERVAL_MS.',
  },
  AGENT_RECONNECT_GRACE_MS: {
    default: '30000',
    group: 'agents',
    description:
      'How long evaluations in flight wait for a dropped agent to re-register before RESOURCE_UNAVAILABLE.',
  },
  AGENT_QUEUE_TIMEOUT_MS: {
    default: '10000',
    group: 'agents',
    description: 'How long an evaluation waits for a free agent slot (maxConcurrency) before LIMIT_REACHED.',
  },
  AGENT_EVALUATION_TIMEOUT_MS: {
    default: '30000',
    group: 'agents',
    description:
      "The agent's time for an evaluation when agents.evaluate gives no timeout (seed 001's example; at most 900000).",
  },
  CDP_TIMEOUT_MS: {
    default: '10000',
    group: 'tabs',
    description:
      'Bound on connecting to CDP_URL and on each tabs.* command: a hung CDP socket ends in an error.',
  },
  CONSOLE_BUFFER_SIZE: {
    default: '1000',
    group: 'sessions',
    description:
      'Console and page-error entries kept per session (a ring buffer: a chatty page cannot grow memory without bound).',
  },
  NETWORK_BUFFER_SIZE: {
    default: '1000',
    group: 'sessions',
    description: 'Network entries kept per session (a ring buffer).',
  },
  SETTLE_QUIET_MS: {
    default: '50',
    group: 'pages',
    description:
      "networkidle: quiet window after the last request (Playwright's own waits a fixed 500 ms); raise it for pages that chain requests with pauses between them.",
  },
  SETTLE_BODY_GRACE_MS: {
    default: '500',
    group: 'pages',
    description:
      'networkidle: a response whose headers came but whose body never finishes stops counting after this.',
  },
  SETTLE_MAX_PENDING_MS: {
    default: '5000',
    group: 'pages',
    description:
      'networkidle: a request with no response at all (long-poll, hung server) stops counting after this.',
  },
  MAX_HTML_CHARS: {
    default: '2000000',
    group: 'pages',
    description: 'page.content cap (truncated: true past it).',
  },
  MAX_SCREENSHOT_BYTES: {
    default: '10000000',
    group: 'pages',
    description: 'Screenshot cap (LIMIT_REACHED past it).',
  },
  MAX_EVALUATE_RESULT_CHARS: {
    default: '1000000',
    group: 'pages',
    description: 'page.evaluate result cap (LIMIT_REACHED past it).',
  },
  EVALUATE_TIMEOUT_MS: {
    default: '10000',
    group: 'pages',
    description:
      "Default page.evaluate deadline (Playwright's has none); past it the page is recycled and the caller gets TIMEOUT.",
  },
  SESSION_CLOSE_TIMEOUT_MS: {
    default: '5000',
    group: 'sessions',
    description:
      "Bound on closing a session: session.close returns even when the page's main thread is frozen.",
  },
  BROWSER_LAUNCH_TIMEOUT_MS: {
    default: '60000',
    group: 'browser',
    description: 'Bound on launching Chromium.',
  },
  SHUTDOWN_TIMEOUT_MS: {
    default: '10000',
    group: 'process',
    description: 'Bound on graceful shutdown after SIGTERM or SIGINT.',
  },
} as const satisfies Record<string, { default: string; group: ConfigGroup; description: string }>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** Every key with its default: the table above without its documentation. */
export const CONFIG_DEFAULTS = Object.fromEntries(
  Object.entries(CONFIG_KEYS).map(([key, entry]) => [key, entry.default]),
) as { readonly [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['default'] };

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

/** Replaces `${NAME}` in a YAML value with the environment's NAME (empty when unset). */
export function substituteEnv(value: string, env: Source): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? '');
}

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
    out[key] = substituteEnv(String(raw), env);
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
export function loadConfig(env: Source = process.env): Config {
  const file = env.CONFIG_FILE ? readConfigFile(env.CONFIG_FILE, env) : {};
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

  return {
    port: int('PORT', get('PORT'), 0, 65535),
    host: get('HOST'),
    apiKeys: get('API_KEY')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k.length > 0),
    allowHostRegex,
    sessionTtlMs: int('SESSION_TTL_MS', get('SESSION_TTL_MS'), 100),
    janitorIntervalMs: int('JANITOR_INTERVAL_MS', get('JANITOR_INTERVAL_MS'), 10),
    maxSessions: int('MAX_SESSIONS', get('MAX_SESSIONS'), 1, 1000),
    poolSize: int('POOL_SIZE', get('POOL_SIZE'), 0, 100),
    poolRefillIdleMs: int('POOL_REFILL_IDLE_MS', get('POOL_REFILL_IDLE_MS'), 0, 600_000),
    rateLimitMax: int('RATE_LIMIT_MAX', get('RATE_LIMIT_MAX'), 1),
    rateLimitWindowMs: int('RATE_LIMIT_WINDOW_MS', get('RATE_LIMIT_WINDOW_MS'), 100),
    bodyLimit,
    bodyLimitBytes,
    batchMax: int('BATCH_MAX', get('BATCH_MAX'), 1, 10000),
    headless: bool('HEADLESS', get('HEADLESS')),
    chromiumPath: get('CHROMIUM_PATH') || undefined,
    logLevel,
    logDir: get('LOG_DIR'),
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
    settleQuietMs: int('SETTLE_QUIET_MS', get('SETTLE_QUIET_MS'), 0, 60_000),
    settleBodyGraceMs: int('SETTLE_BODY_GRACE_MS', get('SETTLE_BODY_GRACE_MS'), 0, 600_000),
    settleMaxPendingMs: int('SETTLE_MAX_PENDING_MS', get('SETTLE_MAX_PENDING_MS'), 0, 600_000),
    maxHtmlChars: int('MAX_HTML_CHARS', get('MAX_HTML_CHARS'), 1),
    maxScreenshotBytes: int('MAX_SCREENSHOT_BYTES', get('MAX_SCREENSHOT_BYTES'), 1),
    maxEvaluateResultChars: int('MAX_EVALUATE_RESULT_CHARS', get('MAX_EVALUATE_RESULT_CHARS'), 1),
    evaluateTimeoutMs: int('EVALUATE_TIMEOUT_MS', get('EVALUATE_TIMEOUT_MS'), 1),
    sessionCloseTimeoutMs: int('SESSION_CLOSE_TIMEOUT_MS', get('SESSION_CLOSE_TIMEOUT_MS'), 1),
    browserLaunchTimeoutMs: int('BROWSER_LAUNCH_TIMEOUT_MS', get('BROWSER_LAUNCH_TIMEOUT_MS'), 1000),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', get('SHUTDOWN_TIMEOUT_MS'), 1),
  };
}
