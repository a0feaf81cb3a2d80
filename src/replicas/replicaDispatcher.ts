import { ServiceError } from '../errors/serviceError.js';
import type { PeerAddresses } from '../config/configReplicas.js';
import type { Logger } from '../observability/logger.js';
import type { CallContext, RpcDispatcher } from '../rpc/dispatch.js';
import type { MethodInfo, Principal } from '../rpc/defineMethod.js';
import { ForwardError, forwardCall, type ForwardRequest } from './forward.js';
import { replicaOfSessionId } from './sessionIds.js';

/** Methods of the agent hub: they run on HUB_REPLICA (docs/deployment.md, "The agent hub"). */
export const HUB_METHOD_PREFIXES = ['agents.', 'tabs.'] as const;

/** Methods whose answer is a stream on the caller's own connection: they cannot be forwarded. */
export const CONNECTION_BOUND_METHODS: ReadonlySet<string> = new Set([
  'session.subscribe',
  'session.unsubscribe',
]);

export interface ReplicaRouting {
  /** REPLICA_ID. */
  self: string;
  peers: PeerAddresses;
  /** HUB_REPLICA, or undefined when each replica serves its own hub. */
  hub: string | undefined;
  forwardTimeoutMs: number;
  /** The configured API key a principal stands for, so a forward presents the caller's own key. */
  keyOf: (principal: Principal) => string | undefined;
}

/** Where a call runs: here, or on the replica named (and why: its session, or the hub). */
type Target = { here: true } | { here: false; replica: string; sessionId: string | undefined };

function sessionIdIn(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const id = (params as Record<string, unknown>).session_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The dispatcher every transport of a replica uses (POST /rpc and its batches, WebSocket /rpc,
 * /mcp, the REST projections): a call for a session another replica created — its id names that
 * replica — or an agent hub call on a replica that is not the hub is sent to that replica's POST
 * /rpc with the caller's key, and its answer returned as it came; every other call runs here. So a
 * call that reached the wrong replica is answered by the right one, or refused naming it.
 */
/** What a refusal naming the replica advises, by why the call could not be forwarded. */
const ELSEWHERE_ADVICE: Record<
  'no-peer-address' | 'connection-bound' | 'no-key' | 'replica-loop',
  (method: string, replica: string) => string
> = {
  'connection-bound': (method, replica) =>
    `${method} streams on the caller's own connection: open the WebSocket to that replica (header x-replica: ${replica}, or ?replica=${replica}, through the load balancer)`,
  'no-peer-address': () =>
    'this replica has no address for it (REPLICA_PEERS): send the call through the load balancer, which routes it by the id',
  'no-key': () =>
    'this replica forwards only calls made with one of the configured API keys: send the call through the load balancer, which routes it by the id',
  'replica-loop': (_method, replica) =>
    `it was forwarded here by another replica, and a forwarded call is not forwarded again (the replicas disagree on where it runs: check HUB_REPLICA and REPLICA_PEERS on each); send it to ${replica} through the load balancer`,
};

export class ReplicaDispatcher implements RpcDispatcher {
  constructor(
    private readonly inner: RpcDispatcher,
    private readonly routing: ReplicaRouting,
    private readonly logger: Logger,
  ) {}

  methods(): readonly MethodInfo[] {
    return this.inner.methods();
  }

  async call(method: string, rawParams: unknown, ctx: CallContext): Promise<unknown> {
    const target = this.targetOf(method, rawParams);
    if (target.here) return this.inner.call(method, rawParams, ctx);
    // Forwarded once already: the replicas disagree on where the call belongs; never bounce it.
    if (ctx.forwardedBy !== undefined)
      throw this.elsewhere(method, target.replica, target.sessionId, 'replica-loop');
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await this.forward(method, rawParams, ctx, target.replica, target.sessionId);
    } catch (error) {
      outcome = error instanceof ServiceError ? error.errorName : 'INTERNAL_ERROR';
      throw error;
    } finally {
      // The owner logs the call itself; this line says it passed through here (session id only).
      ctx.log.info(
        {
          method,
          sessionId: target.sessionId,
          forwardedTo: target.replica,
          durationMs: Math.round(performance.now() - started),
          outcome,
        },
        'rpc call forwarded',
      );
    }
  }

  private targetOf(method: string, params: unknown): Target {
    const { self, hub } = this.routing;
    if (hub !== undefined && hub !== self && HUB_METHOD_PREFIXES.some((p) => method.startsWith(p)))
      return { here: false, replica: hub, sessionId: sessionIdIn(params) };
    const sessionId = sessionIdIn(params);
    const replica = sessionId === undefined ? undefined : replicaOfSessionId(sessionId);
    if (replica === undefined || replica === self) return { here: true };
    return { here: false, replica, sessionId };
  }

  private async forward(
    method: string,
    params: unknown,
    ctx: CallContext,
    replica: string,
    sessionId: string | undefined,
  ): Promise<unknown> {
    const origin = this.routing.peers.addressOf(replica);
    const apiKey = ctx.principal === undefined ? undefined : this.routing.keyOf(ctx.principal);
    if (
      origin === undefined ||
      apiKey === undefined ||
      (ctx.push !== undefined && CONNECTION_BOUND_METHODS.has(method))
    )
      throw this.elsewhere(
        method,
        replica,
        sessionId,
        origin === undefined ? 'no-peer-address' : apiKey === undefined ? 'no-key' : 'connection-bound',
      );
    const request: ForwardRequest = {
      origin,
      replica,
      from: this.routing.self,
      method,
      params,
      apiKey,
      requestId: ctx.requestId,
      signal: ctx.signal,
      timeoutMs: this.routing.forwardTimeoutMs,
    };
    try {
      return await forwardCall(request);
    } catch (error) {
      if (!(error instanceof ForwardError)) throw error;
      this.logger.warn(
        { replica, failure: error.failure, detail: error.message, status: error.status },
        'forward failed',
      );
      throw this.forwardFailed(method, replica, sessionId, error);
    }
  }

  /** The call cannot be forwarded: it is refused naming the replica that holds its session. */
  private elsewhere(
    method: string,
    replica: string,
    sessionId: string | undefined,
    reason: 'no-peer-address' | 'connection-bound' | 'no-key' | 'replica-loop',
  ): ServiceError {
    const how = ELSEWHERE_ADVICE[reason](method, replica);
    if (sessionId === undefined)
      return new ServiceError('RESOURCE_UNAVAILABLE', `${method} runs on replica ${replica}; ${how}.`, {
        replica,
        reason: 'other-replica',
      });
    return new ServiceError(
      'SESSION_NOT_FOUND',
      `Session ${sessionId} lives on replica ${replica}; ${how}.`,
      {
        session_id: sessionId,
        replica,
        reason: 'other-replica',
      },
    );
  }

  private forwardFailed(
    method: string,
    replica: string,
    sessionId: string | undefined,
    error: ForwardError,
  ): ServiceError {
    if (error.failure === 'caller-gone')
      return new ServiceError('RESOURCE_UNAVAILABLE', `${method} was cancelled: the caller disconnected`, {
        reason: 'caller-gone',
      });
    // Nothing was sent and a session is named: its replica is gone, and its sessions with it (they
    // live in that process's memory). A hub call may be retried: the hub comes back.
    if (error.failure === 'unreachable' && sessionId !== undefined)
      return new ServiceError(
        'SESSION_NOT_FOUND',
        `Session ${sessionId} not found: its replica ${replica} cannot be reached, and a replica's sessions end with it. Call session.create for a new one.`,
        { session_id: sessionId, replica, reason: 'replica-unreachable' },
      );
    const why: Record<Exclude<ForwardError['failure'], 'caller-gone'>, string> = {
      unreachable: `replica ${replica} cannot be reached`,
      lost: `the connection to replica ${replica} broke before it answered (it may have stopped; the call may have run)`,
      timeout: `replica ${replica} did not answer within REPLICA_FORWARD_TIMEOUT_MS (the call may have run)`,
      refused: `replica ${replica} answered without JSON-RPC (${error.message})`,
    };
    return new ServiceError(
      'RESOURCE_UNAVAILABLE',
      `${method} failed: ${why[error.failure]}; retry shortly.`,
      {
        ...(sessionId === undefined ? {} : { session_id: sessionId }),
        replica,
        reason: `replica-${error.failure}`,
      },
    );
  }
}
