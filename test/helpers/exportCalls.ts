// The replay exports (replay.trace, replay.video) allow one build per key every few seconds
// (ExportSlot's per-key interval): a test that exports one session after another waits the
// retryAfterMs the refusal gives, as a client would, instead of seeing the refusal.
import type { JsonRpcReply, TestService } from './testService.js';

/** Refusals waited out at most, each after its retryAfterMs. */
const MAX_WAITS = 3;

/** Calls an export, waiting out the key's interval when the service says to. */
export async function exportCall(
  service: TestService,
  method: 'replay.trace' | 'replay.video',
  params: Record<string, unknown>,
): Promise<JsonRpcReply> {
  for (let waited = 0; ; waited++) {
    const reply = await service.rpc(method, params);
    const data = reply.error?.data as { limit?: unknown; retryAfterMs?: unknown } | undefined;
    const perKey = typeof data?.limit === 'string' && data.limit.endsWith('per key');
    if (!perKey || waited >= MAX_WAITS || typeof data?.retryAfterMs !== 'number') return reply;
    await new Promise((resolve) => setTimeout(resolve, Number(data.retryAfterMs) + 50));
  }
}
