import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every metric the service exports, on a registry of its own so tests can build several apps. */
export class Metrics {
  readonly registry = new Registry();
  readonly rpcRequests = new Counter({
    name: 'rpc_requests_total',
    help: 'JSON-RPC calls by method and outcome (ok or the error name)',
    labelNames: ['method', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly rpcDuration = new Histogram({
    name: 'rpc_request_duration_seconds',
    help: 'JSON-RPC call duration by method',
    labelNames: ['method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly sessionsActive = new Gauge({
    name: 'browser_sessions_active',
    help: 'Open browser sessions',
    registers: [this.registry],
  });
  readonly sessionsCreated = new Counter({
    name: 'browser_sessions_created_total',
    help: 'Sessions created',
    registers: [this.registry],
  });
  readonly sessionsExpired = new Counter({
    name: 'browser_sessions_expired_total',
    help: 'Sessions closed by the idle janitor',
    registers: [this.registry],
  });
  readonly browserRestarts = new Counter({
    name: 'browser_restarts_total',
    help: 'Times the shared browser was relaunched after it died',
    registers: [this.registry],
  });
  readonly agentsConnected = new Gauge({
    name: 'agents_connected',
    help: 'Evaluation agents connected on /agents',
    registers: [this.registry],
  });
  readonly agentEvaluations = new Counter({
    name: 'agent_evaluations_total',
    help: 'Agent evaluations by final status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }
}
