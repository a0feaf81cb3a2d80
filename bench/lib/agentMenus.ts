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
  /** What each optional group adds to it (its tools as `?groups=all` lists them). */
  serviceGroups: Record<string, number>;
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
  const serviceGroups: Record<string, number> = {};
  for (const group of OPTIONAL_GROUPS) {
    const names = new Set(methodsOf(group).map(toolName));
    serviceGroups[group] = menuChars(all.filter((t) => names.has(t.name)));
  }
  return { serviceDefault, serviceGroups, peer: menuChars(await systems.peer.listTools()) };
}

/**
 * The groups beyond core that the methods a task called belong to, sorted: an MCP agent has them
 * listed for the whole task. The steps of page.act count too (the route checks only page_act's own
 * group, but an agent learns a step method's params from its tool), so this errs on the service's
 * side.
 */
export function groupsBeyondCore(methods: Iterable<string>): string[] {
  const groups = new Set<string>();
  for (const m of methods) {
    const g = groupOf(m);
    if (g !== undefined && g !== CORE_GROUP) groups.add(g);
  }
  return [...groups].sort();
}

/** The service's menu for a task that needs `groups`: the default list plus each group's tools. */
export function serviceMenuChars(menus: AgentMenus, groups: readonly string[]): number {
  return groups.reduce((sum, g) => {
    const extra = menus.serviceGroups[g];
    if (extra === undefined) throw new Error(`no menu size for tool group "${g}"`);
    return sum + extra;
  }, menus.serviceDefault);
}
