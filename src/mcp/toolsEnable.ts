import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ALL_GROUPS, OPTIONAL_GROUPS, aboutGroup, type ToolGroup } from './toolGroups.js';

/** The MCP tool that adds a capability group to the client's menu at run time (not a method of /rpc). */
export const TOOLS_ENABLE = 'tools_enable';
/** Tools one tools_enable call may name (a group holds the rest). */
export const MAX_TOOLS_PER_ENABLE = 16;

/** The one tool that is the menu's own: what each group holds, so a model knows which to ask for. */
export const toolsEnableTool: Tool = {
  name: TOOLS_ENABLE,
  title: 'Enable more tools',
  description: `Adds tools to your list: a group, or only the tools you name (page_upload). Groups: ${OPTIONAL_GROUPS.map(
    (g) => `${g} (${aboutGroup(g)})`,
  ).join('; ')}; ${ALL_GROUPS}.`,
  inputSchema: {
    type: 'object',
    properties: {
      group: { type: 'string', enum: [...OPTIONAL_GROUPS, ALL_GROUPS] },
      tools: { type: 'array', items: { type: 'string' }, maxItems: MAX_TOOLS_PER_ENABLE },
    },
  },
  annotations: {
    title: 'Enable more tools',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};

/** The groups a tools_enable argument names, or undefined for one it does not know. */
export function groupsToEnable(group: unknown): ToolGroup[] | undefined {
  if (group === ALL_GROUPS) return [...OPTIONAL_GROUPS];
  const found = OPTIONAL_GROUPS.find((g) => g === group);
  return found === undefined ? undefined : [found];
}
