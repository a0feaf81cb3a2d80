import type { AgentRegistry } from '../hub/agentRegistry.js';
import type { CdpTabs } from '../cdp/cdpTabs.js';
import type { Config } from '../config/config.js';
import type { BrowserSource } from '../browser/engine/browserSource.js';
import type { FeedQuota } from '../browser/events/feedQuota.js';
import type { SessionRegistry } from '../browser/session/sessionRegistry.js';
import type { UrlPolicy } from '../browser/network/urlPolicy.js';
import type { Metrics } from '../observability/metrics.js';
import type { OpenRpcDocument } from '../rpc/openrpc.js';
import type { CallInfo } from '../rpc/defineMethod.js';

/** The instances handlers reach through their context: injected, never module-global. */
export interface Services {
  config: Config;
  browser: BrowserSource;
  sessions: SessionRegistry;
  /**
   * The feeds of sessions' logs each key holds (session.subscribe here, GET /sessions/{id}/events
   * in the HTTP edge), against MAX_SUBSCRIPTIONS_PER_KEY: one instance shared by both transports.
   */
  feedQuota: FeedQuota;
  policy: UrlPolicy;
  metrics: Metrics;
  openrpc: () => OpenRpcDocument;
  /** The evaluation agents connected on /agents (agents.*). */
  agents: AgentRegistry;
  /** The tabs of the CDP_URL browser (tabs.*). */
  tabs: CdpTabs;
  /**
   * Makes a call through the dispatcher (validation, metrics, log line, error mapping) as the same
   * caller: page.act runs its steps with it.
   */
  call: (method: string, params: Record<string, unknown>, ctx: CallInfo) => Promise<unknown>;
}
