import type { NextFunction, Request, Response } from 'express';
import express, { type Router } from 'express';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { RpcDispatcher } from '../rpc/dispatch.js';
import type { Principal } from '../rpc/defineMethod.js';
import { principalFor } from '../http/auth.js';
import { sendErrorEnvelope } from '../http/errorEnvelope.js';
import { ReplicaDispatcher } from './replicaDispatcher.js';
import { replicaOfSessionId } from './sessionIds.js';

/**
 * The dispatcher of this process: the engine itself for a single service, or a ReplicaDispatcher
 * around it when REPLICA_ID is set (every transport then forwards calls for other replicas).
 */
export function replicaAware(dispatcher: RpcDispatcher, config: Config, logger: Logger): RpcDispatcher {
  if (config.replicaId === undefined) return dispatcher;
  // A principal's id is a digest of its key (http/auth.ts): the configured keys, by that id.
  const keys = new Map<string, string>(
    config.apiKeys.map((key) => [principalFor(key, config.adminApiKey).id, key]),
  );
  return new ReplicaDispatcher(
    dispatcher,
    {
      self: config.replicaId,
      peers: config.replicaPeers,
      hub: config.hubReplica,
      forwardTimeoutMs: config.replicaForwardTimeoutMs,
      keyOf: (principal: Principal) => keys.get(principal.id),
    },
    logger,
  );
}

/**
 * The session streams (GET /sessions/{id}/events and /screencast) hold the caller's connection, so
 * they are not forwarded: one for another replica's session is refused with 404 SESSION_NOT_FOUND
 * naming that replica (the load balancer routes these paths by the id; this answers when it could
 * not, e.g. while that replica is down). A single service mounts nothing.
 */
export function replicaStreamGuard(replicaId: string | undefined): Router {
  const router = express.Router();
  if (replicaId === undefined) return router;
  router.get(
    ['/sessions/:id/events', '/sessions/:id/screencast'],
    (req: Request, res: Response, next: NextFunction) => {
      const id = String(req.params.id);
      const replica = replicaOfSessionId(id);
      if (replica === undefined || replica === replicaId) {
        next();
        return;
      }
      sendErrorEnvelope(
        res,
        404,
        'SESSION_NOT_FOUND',
        `Session ${id} lives on replica ${replica}, not this one (${replicaId}): open the stream through the load balancer, which routes /sessions/{id}/… by the id.`,
        { session_id: id, replica, reason: 'other-replica' },
      );
    },
  );
  return router;
}
