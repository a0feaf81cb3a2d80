import { REPLICA_ID_PATTERN } from '../config/configReplicas.js';

/** What a session id starts with on a replica: `s_` and the replica id, then `.` before the uuid. */
export function sessionIdPrefix(replicaId: string | undefined): string {
  return replicaId === undefined ? 's_' : `s_${replicaId}.`;
}

/**
 * The replica a session id names (`s_r2.<uuid>` → `r2`), or undefined for an id without one (a
 * single service's `s_<uuid>`, or anything else). A uuid has no `.`, so the first one ends the name.
 */
export function replicaOfSessionId(id: string): string | undefined {
  if (!id.startsWith('s_')) return undefined;
  const dot = id.indexOf('.');
  if (dot < 0) return undefined;
  const name = id.slice(2, dot);
  return REPLICA_ID_PATTERN.test(name) ? name : undefined;
}
