// Over the 350-line guideline: this file is one declarative table (a key, its default, its section,
// its text) that docs/configuration.md is generated from; the groups that stand apart already live
// in configCaps.ts, configIdempotency.ts, configLive.ts, configPool.ts, configReplicas.ts,
// configBrowserTier.ts, configProxies.ts and configUi.ts, and splitting the rest would split one table.
/** Every configuration key: its default, what it does, and its section of docs/configuration.md. */
import { BODY_CAP_KEYS } from './configCaps.js';
import { BROWSER_TIER_KEYS } from './configBrowserTier.js';
import { IDEMPOTENCY_CONFIG_KEYS } from './configIdempotency.js';
import { LIVE_CONFIG_KEYS } from './configLive.js';
import { REPLICA_KEYS } from './configReplicas.js';
import { POOL_CONFIG_KEYS } from './configPool.js';
import { TRUSTED_PROXY_KEYS } from './configProxies.js';
import { UI_KEYS } from './configUi.js';

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
  replicas: 'Replicas behind a load balancer',
} as const;

export type ConfigGroup = keyof typeof CONFIG_GROUPS;

/** Paragraphs docs/configuration.md prints under a section's table (generated with it). */
export const CONFIG_GROUP_NOTES: Partial<Record<ConfigGroup, readonly string[]>> = {
  http: [
    '`RATE_LIMIT_MAX` is sized for agents. A fast agent loop (`page.click`, `page.fill` and ' +
      '`page.text` on the fixture app, one call after the other over HTTP, no pause) made 546, 359 ' +
      'and 407 calls a minute in three runs on 2026-11-24, on a 2-core machine at a load average of ' +
      '9 to 21. The benchmark times the same calls at a load of 2 to 4 (bench/RESULTS.md: click 56 ms, ' +
      'fill 84 ms, text 7 ms at p50), which puts that loop near 1,200 calls a minute on a quiet ' +
      'machine. The default of 3,000 a minute per key is 2.5 times that. Give each agent its own key: ' +
      'agents that share a key share its budget. The old default of 120 stopped such a loop after ' +
      '9.4 s.',
    'Past the limit the answer is HTTP 429 with `Retry-After` in seconds and `data.retryAfterMs`. ' +
      'Both give the time until the window ends, when the caller is admitted again; the seconds are ' +
      'rounded up. The request\'s JSON-RPC `id` is kept (see security.md, "The 429 answer").',
    'Every answer of a rate-limited route, 200s included, says what is left of the budget it spent: ' +
      '`RateLimit-Limit` (`RATE_LIMIT_MAX`), `RateLimit-Remaining`, `RateLimit-Reset` (seconds to ' +
      'the end of the window) and `RateLimit-Policy` (`<max>;w=<window seconds>`), the fields of the ' +
      'IETF RateLimit header draft as its 6th revision names them. A caller can slow down before it ' +
      'meets a 429 (security.md, "The RateLimit fields").',
  ],
};

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
  ADMIN_API_KEY: {
    default: '',
    group: 'http',
    description:
      "An operator key, accepted like API_KEY's, that sees and acts on every key's sessions; never generated; must differ from every API_KEY key.",
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
    default: '32',
    group: 'sessions',
    description:
      'Open sessions at most (pooled contexts and attached tabs count too). The default is what 2 cores carried with every session busy and no error in the benchmark; size it per machine from `npm run bench -- --only scale`.',
  },
  MAX_SESSIONS_PER_KEY: {
    default: '',
    group: 'sessions',
    description:
      'Open sessions one API key may hold (attached tabs count; ADMIN_API_KEY has the same share); when unset, MAX_SESSIONS divided by the number of API_KEY keys, rounded up, so a single key may still hold all MAX_SESSIONS.',
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
      'While no creates are arriving, the pool refills only after no call ran for this long: creating a context costs Chromium CPU that would otherwise slow the calls in progress (under demand see POOL_MAX_OPENING).',
  },
  ...POOL_CONFIG_KEYS,
  RATE_LIMIT_MAX: {
    default: '3000',
    group: 'http',
    description:
      'Calls per window per API key (each member of a batch counts, as does every WebSocket message), and requests without a valid key per client address (HTTP 429 past it, Retry-After = data.retryAfterMs). The default is over twice what a fast agent loop makes (see below).',
  },
  RATE_LIMIT_WINDOW_MS: {
    default: '60000',
    group: 'http',
    description: 'Rate-limit window: a caller past RATE_LIMIT_MAX is admitted again when its window ends.',
  },
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
  MAX_RPC_SOCKETS_PER_KEY: {
    default: '32',
    group: 'http',
    description:
      'Open WebSocket /rpc sockets per API key, past which its handshakes get 429: one key cannot hold every socket.',
  },
  MAX_RPC_SOCKETS_PER_ADDRESS: {
    default: '64',
    group: 'http',
    description:
      'Open WebSocket /rpc sockets per client address (IPv6 by /56), past which its handshakes get 429.',
  },
  ALLOWED_HOSTS: {
    default: '',
    group: 'http',
    description:
      'Names the Host header may carry besides localhost, 127.0.0.1, [::1] and HOST (any port), comma-separated; any other Host gets 403 (DNS rebinding).',
  },
  ...UI_KEYS,
  ...TRUSTED_PROXY_KEYS,
  ...REPLICA_KEYS,
  HEADLESS: { default: 'true', group: 'browser', description: 'Browser mode (true or false).' },
  CHROMIUM_PATH: {
    default: '',
    group: 'browser',
    description: "The browser binary; when unset, Playwright's download, else the system's Chromium.",
  },
  ...BROWSER_TIER_KEYS,
  LOG_LEVEL: {
    default: 'info',
    group: 'process',
    description: 'pino level: fatal, error, warn, info, debug, trace or silent.',
  },
  LOG_DIR: {
    default: 'logs',
    group: 'agents',
    description: 'Where the evaluation log (evaluations.jsonl) is written, and with LOG_FILES the log files.',
  },
  LOG_FILES: {
    default: 'false',
    group: 'process',
    description:
      'true: every log line also goes to LOG_DIR/combined.log, and those at error and above to LOG_DIR/error.log (appended; the same scrubbed lines as stdout).',
  },
  AGENT_SECRET: {
    default: '',
    group: 'agents',
    description:
      'Secret every agent register must carry (secretKey); when unset, one is generated at start-up and printed once on stderr.',
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
  PAGE_EVENT_RATE: {
    default: '200',
    group: 'sessions',
    description:
      "Entries of each kind (console, page errors, network, navigations) one page may record a second; past it (and past PAGE_EVENT_BURST) they are dropped, counted, and the owner gets a warning in the session's console log once a second. Console calls past it are dropped in the page itself, before they cross the browser pipe every session shares.",
  },
  PAGE_EVENT_BURST: {
    default: '1000',
    group: 'sessions',
    description: 'Entries of each kind one page may record at once before PAGE_EVENT_RATE applies.',
  },
  PAGE_THROTTLE_AFTER_MS: {
    default: '5000',
    group: 'sessions',
    description:
      'How long a page must keep exceeding PAGE_EVENT_RATE before its CPU is slowed by PAGE_THROTTLE_RATE (with a warning to its owner).',
  },
  PAGE_THROTTLE_RATE: {
    default: '20',
    group: 'sessions',
    description:
      "How many times slower a flooding page's CPU runs, until the page closes (Chromium's CPU throttling); 1: never slowed.",
  },
  MAX_SESSION_EVENTS: {
    default: '1000',
    group: 'sessions',
    description:
      "Entries each session's event log keeps (every kind: console, requests, navigations …). A reader whose cursor fell further behind (logs.pull / network.pull with since, session.subscribe, GET /sessions/{id}/events) gets dropped: N.",
  },
  REPLAY: {
    default: 'false',
    group: 'sessions',
    description:
      'Take a JPEG of the page after each call that changes something, for replay (session.create replay overrides it per session): each costs the call a screenshot, tens of ms.',
  },
  REPLAY_KEEP_MS: {
    default: '600000',
    group: 'sessions',
    description:
      "How long a closed session's action timeline and replay pictures stay readable by its key (GET /sessions/{id}/events?since=0, replay.picture); 0 keeps nothing.",
  },
  MAX_REPLAY_BYTES: {
    default: '8388608',
    group: 'sessions',
    description: 'The replay pictures one session keeps (8 MiB); past it the oldest go.',
  },
  FFMPEG_PATH: {
    default: '',
    group: 'sessions',
    description:
      'The ffmpeg binary replay.video encodes with; when unset, the first ffmpeg on PATH. Without one, replay.video answers -32005 and the trace (replay.trace) is the export.',
  },
  MAX_DOWNLOAD_BYTES: {
    default: '26214400',
    group: 'sessions',
    description:
      "One download's size cap (25 MiB): a larger one is cancelled while it streams (Chromium reports its progress about every 0.5 s), deleted, and listed as refused.",
  },
  MAX_SESSION_DOWNLOAD_BYTES: {
    default: '104857600',
    group: 'sessions',
    description:
      "What one session's kept downloads, with those still streaming, may add up to (100 MiB); a download that would pass it is refused like one over MAX_DOWNLOAD_BYTES. Deleted when the session ends.",
  },
  MAX_SESSION_DOWNLOADS: {
    default: '50',
    group: 'sessions',
    description:
      'Downloads one session may start; past it a new one is cancelled and listed as refused (20 of them; later ones are only cancelled).',
  },
  MAX_PDF_BYTES: {
    default: '20971520',
    group: 'sessions',
    description:
      'The largest PDF page.pdf answers (20 MiB): a larger one is refused with LIMIT_REACHED (print fewer pageRanges).',
  },
  MAX_TRACE_INLINE_BYTES: {
    default: '5242880',
    group: 'sessions',
    description:
      "A trace zip up to this size (5 MiB) comes inline in trace.stop's answer as base64; a larger one is read with trace.get. At most 64 MiB (an answer is held in memory whole).",
  },
  MAX_SESSION_TRACE_BYTES: {
    default: '209715200',
    group: 'sessions',
    description:
      "What one session's kept traces may add up to (200 MiB); a trace that would pass it is deleted and refused with LIMIT_REACHED. Deleted when the session ends.",
  },
  MAX_FAILURE_TRACES: {
    default: '5',
    group: 'sessions',
    description: 'Traces of failed calls a session with traceOnFailure keeps; past it the oldest is deleted.',
  },
  ...BODY_CAP_KEYS,
  ...IDEMPOTENCY_CONFIG_KEYS,
  ...LIVE_CONFIG_KEYS,
  MAX_UPLOAD_BYTES: {
    default: '',
    group: 'pages',
    description:
      'Decoded bytes one page.upload may carry, all files together; when unset, what BODY_LIMIT lets through as base64 (3/4 of it, 384 KiB by default); set higher, it also needs a BODY_LIMIT of at least 4/3 of it.',
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
  ACTION_SETTLE_MS: {
    default: '3000',
    group: 'pages',
    description:
      'After an action (click, fill, select …): the most it waits for the navigation, the requests and the short timers it started before it answers; what still runs then is reported as pending (0: answer at once).',
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
  MEMORY_HIGH_WATER_MB: {
    default: '0',
    group: 'process',
    description:
      "The service's own memory (heap and buffers) past which new work is refused with RESOURCE_UNAVAILABLE (reason memory) until it falls; closing sessions and pulling buffers still run. 0: 75% of Node's heap limit.",
  },
} as const satisfies Record<string, { default: string; group: ConfigGroup; description: string }>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

/** Every key with its default: the table above without its documentation. */
export const CONFIG_DEFAULTS = Object.fromEntries(
  Object.entries(CONFIG_KEYS).map(([key, entry]) => [key, entry.default]),
) as { readonly [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['default'] };
