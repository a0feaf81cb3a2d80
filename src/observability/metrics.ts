import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One metric on one registry; labels, when given, are the metric's whole bounded label set. */
function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

function gauge(registry: Registry, name: string, help: string) {
  return new Gauge({ name, help, registers: [registry] });
}

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

/** Every metric the service exports, on a registry of its own so tests can build several apps. */
export class Metrics {
  readonly registry = new Registry();
  readonly rpcRequests = counter(
    this.registry,
    'rpc_requests_total',
    'JSON-RPC calls by method and outcome (ok or the error name)',
    ['method', 'outcome'] as const,
  );
  readonly rpcDuration = new Histogram({
    name: 'rpc_request_duration_seconds',
    help: 'JSON-RPC call duration by method',
    labelNames: ['method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly rpcReplays = counter(
    this.registry,
    'rpc_idempotent_replays_total',
    'Calls with an idempotency_key answered with another run of the same key (stored or awaited), by method',
    ['method'] as const,
  );
  readonly idempotencyEvictions = counter(
    this.registry,
    'rpc_idempotency_evictions_total',
    'Idempotency keys forgotten before IDEMPOTENCY_TTL_MS because IDEMPOTENCY_MAX_KEYS was reached',
  );
  readonly httpRefusals = counter(
    this.registry,
    'http_refusals_total',
    'Requests and WebSocket handshakes refused (401, 403, 429; 400 for a placeholder key) by route template, reason and status',
    ['route', 'reason', 'status'] as const,
  );
  readonly sessionsActive = gauge(this.registry, 'browser_sessions_active', 'Open browser sessions');
  readonly sessionsCreated = counter(this.registry, 'browser_sessions_created_total', 'Sessions created');
  readonly poolTakes = counter(
    this.registry,
    'browser_pool_takes_total',
    'Session creates with default options by whether the warm pool had a ready context (hit) or not (miss)',
    ['outcome'] as const,
  );
  readonly sessionsExpired = counter(
    this.registry,
    'browser_sessions_expired_total',
    'Sessions closed by the idle janitor',
  );
  readonly browserRestarts = counter(
    this.registry,
    'browser_restarts_total',
    'Times the shared browser was relaunched after it died',
  );
  readonly agentsConnected = gauge(
    this.registry,
    'agents_connected',
    'Evaluation agents connected on /agents',
  );
  readonly agentEvaluations = counter(
    this.registry,
    'agent_evaluations_total',
    'Agent evaluations by final status',
    ['status'] as const,
  );

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics === false) return;
    collectDefaultMetrics({ register: this.registry });
    for (const name of PROMTOOL_REFUSED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
  }
}
