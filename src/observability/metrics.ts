import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * prom-client's default metrics that `promtool check metrics` refuses (exit 3: "non-counter metrics
 * should not have "_total" suffix"): gauges named like counters. Each is the sum over `type` of the
 * family of the same name without the suffix, which stays (`sum(nodejs_active_handles)`), so
 * dropping them loses nothing a query needs. prom-client 15.1.3 has no option to rename them.
 */
export const PROMTOOL_REFUSED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/** What /metrics says of each metric the service defines (its HELP line), by name. */
const HELP = {
  rpc_requests_total: 'JSON-RPC calls by method and outcome (ok or the error name)',
  rpc_request_duration_seconds: 'JSON-RPC call duration by method',
  rpc_idempotent_replays_total:
    'Calls with an idempotency_key answered with another run of the same key (stored or awaited), by method',
  rpc_idempotency_evictions_total:
    'Idempotency keys forgotten before IDEMPOTENCY_TTL_MS because IDEMPOTENCY_MAX_KEYS was reached',
  http_refusals_total:
    'Requests and WebSocket handshakes refused (401, 403, 429; 400 for a placeholder key) by route template, reason and status',
  browser_sessions_active: 'Open browser sessions',
  browser_sessions_created_total: 'Sessions created',
  browser_pool_takes_total:
    'Session creates with default options by whether the warm pool had a ready context (hit) or not (miss)',
  browser_sessions_expired_total: 'Sessions closed by the idle janitor',
  browser_restarts_total: 'Times the shared browser was relaunched after it died',
  agents_connected: 'Evaluation agents connected on /agents',
  agent_evaluations_total: 'Agent evaluations by final status',
} as const;

type MetricName = keyof typeof HELP;

/** Every metric the service exports, on a registry of its own so tests can build several apps. */
export class Metrics {
  readonly registry = new Registry();
  readonly rpcRequests = this.counter('rpc_requests_total', ['method', 'outcome']);
  readonly rpcDuration = new Histogram({
    name: 'rpc_request_duration_seconds',
    help: HELP.rpc_request_duration_seconds,
    labelNames: ['method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly rpcReplays = this.counter('rpc_idempotent_replays_total', ['method']);
  readonly idempotencyEvictions = this.counter('rpc_idempotency_evictions_total');
  readonly httpRefusals = this.counter('http_refusals_total', ['route', 'reason', 'status']);
  readonly sessionsActive = this.gauge('browser_sessions_active');
  readonly sessionsCreated = this.counter('browser_sessions_created_total');
  readonly poolTakes = this.counter('browser_pool_takes_total', ['outcome']);
  readonly sessionsExpired = this.counter('browser_sessions_expired_total');
  readonly browserRestarts = this.counter('browser_restarts_total');
  readonly agentsConnected = this.gauge('agents_connected');
  readonly agentEvaluations = this.counter('agent_evaluations_total', ['status']);

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics === false) return;
    collectDefaultMetrics({ register: this.registry });
    for (const name of PROMTOOL_REFUSED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
  }

  /** A counter on this registry; labels, when given, are its whole bounded label set. */
  private counter<L extends string>(name: MetricName, labelNames: readonly L[] = []): Counter<L> {
    return new Counter<L>({ name, help: HELP[name], labelNames, registers: [this.registry] });
  }

  private gauge(name: MetricName): Gauge {
    return new Gauge({ name, help: HELP[name], registers: [this.registry] });
  }
}
