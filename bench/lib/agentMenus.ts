// What an MCP agent is sent besides the answers: its client sends the whole tool list with every
// model request, so a task of N calls (N model turns) costs the menu N times. The menus are read
// from the running systems (tools/list over the MCP SDK client) and measured as
// test/integration/mcpMenu.test.ts measures them.
import { menuChars } from '../../src/mcp/menuSize.js';
import { toolName } from '../../src/mcp/toolCatalog.js';
import { CORE_GROUP, groupOf, methodsOf, OPTIONAL_GROUPS } from '../../src/mcp/toolGroups.js';
import type { PeerSystem } from '../systems/peer.js';
import type { ServiceSystem } from '../systems/service.js';

/** The menus of one run, in characters (menuChars). */
export interface AgentMenus {
  /** The service's default /mcp list: the core group and tools_enable. */
  serviceDefault: number;
  /** What each tool beyond core adds to it when enabled alone (tools_enable {tools: [name]}). */
  serviceTools: Record<string, number>;
  /** @playwright/mcp's list. */
  peer: number;
}

/** Reads both menus from the running systems. */
export async function readAgentMenus(systems: {
  service: ServiceSystem;
  peer: PeerSystem;
}): Promise<AgentMenus> {
  const serviceDefault = menuChars(await systems.service.mcpTools());
  const all = await systems.service.mcpTools('?groups=all');
  const serviceTools: Record<string, number> = {};
  for (const group of OPTIONAL_GROUPS)
    for (const name of methodsOf(group).map(toolName)) {
      const tool = all.find((t) => t.name === name);
      if (tool !== undefined) serviceTools[name] = menuChars([tool]);
    }
  return { serviceDefault, serviceTools, peer: menuChars(await systems.peer.listTools()) };
}

/**
 * The tools beyond core that the methods a task called are, sorted: an MCP agent enables them with
 * one tools_enable call (one more turn) and has them listed from then on, counted here for the whole
 * task. The steps of page.act count too (the route checks only page_act's own tool, but an agent
 * learns a step method's params from its tool), so this errs on the service's side.
 */
export function toolsBeyondCore(methods: Iterable<string>): string[] {
  const tools = new Set<string>();
  for (const m of methods) {
    const g = groupOf(m);
    if (g !== undefined && g !== CORE_GROUP) tools.add(toolName(m));
  }
  return [...tools].sort();
}

/** The service's menu for a task that enabled `tools`: the default list plus each tool. */
export function serviceMenuChars(menus: AgentMenus, tools: readonly string[]): number {
  return tools.reduce((sum, t) => {
    const extra = menus.serviceTools[t];
    if (extra === undefined) throw new Error(`no menu size for tool "${t}"`);
    return sum + extra;
  }, menus.serviceDefault);
}
