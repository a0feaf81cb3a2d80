/**
 * Which tools tools/list shows: a model should not be offered tools that can do nothing here.
 * - tabs_* drive a separate browser: listed only when the service was configured with one.
 * - agents_* route work to evaluation agents: listed only while at least one is connected. /mcp is
 *   stateless (no stream the server could push notifications/tools/list_changed on), so a client
 *   sees agents_* appear or go the next time it lists tools.
 * - rpc.discover is never a tool: tools/list is MCP's own discovery, and the OpenRPC document is
 *   far too large for a model's context.
 * - session.subscribe / session.unsubscribe push notifications on the /rpc WebSocket, which /mcp
 *   cannot carry: never listed; called anyway, they answer why and what to use instead.
 * A hidden tool can still be called (an agent may connect between a list and a call); the method
 * then answers with its own error when it cannot work.
 */
export interface ToolAvailability {
  /** Whether a separate browser to attach tabs from is configured. */
  cdpConfigured: boolean;
  /** How many evaluation agents are connected now. */
  agentsConnected: () => number;
}

/** Without availability from the service, every tool is shown (the projection of the whole table). */
export const ALL_TOOLS: ToolAvailability = { cdpConfigured: true, agentsConnected: () => 1 };

/** Methods that are never MCP tools. */
export const NOT_TOOLS: ReadonlySet<string> = new Set(['rpc.discover']);

/** Methods that need a connection carrying notifications (WebSocket /rpc): never listed on /mcp. */
export const PUSH_ONLY: ReadonlySet<string> = new Set(['session.subscribe', 'session.unsubscribe']);

/** Whether tools/list shows the tool of this method now. */
export function isListed(method: string, availability: ToolAvailability): boolean {
  if (NOT_TOOLS.has(method) || PUSH_ONLY.has(method)) return false;
  if (method.startsWith('tabs.')) return availability.cdpConfigured;
  if (method.startsWith('agents.')) return availability.agentsConnected() > 0;
  return true;
}
