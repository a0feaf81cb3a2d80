import type { Request } from 'express';
import { ServiceError } from '../errors/serviceError.js';
import { ALL_GROUPS, TOOL_GROUPS, parseGroups, type ToolGroup } from './toolGroups.js';
import type { ToolMenus } from './toolMenus.js';
import { TOOLS_ENABLE } from './toolsEnable.js';

/** The query parameter that names the groups a client wants listed: `/mcp?groups=network,storage`. */
export const GROUPS_QUERY = 'groups';
/** The header that does the same, for clients that set headers more easily than URLs. */
export const GROUPS_HEADER = 'x-mcp-groups';
/** The query parameter that adds each tool's outputSchema to the list: `?outputSchemas=true`. */
export const OUTPUT_SCHEMAS_QUERY = 'outputSchemas';
/** The header a client sends its Mcp-Session-Id in (lower case, as Node names headers). */
const SESSION_HEADER = 'mcp-session-id';
/** What this service takes as a menu id: visible ASCII, as the MCP spec allows, and short. */
const MENU_ID = /^[\x21-\x7E]{1,128}$/;

/** The strings of a query parameter or header, however Express parsed it. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/**
 * The menu of one POST to /mcp: the groups its URL and headers ask for, the client's menu id (its
 * Mcp-Session-Id), and whether tools carry their output schemas.
 */
export class RequestMenu {
  constructor(
    private readonly base: ReadonlySet<ToolGroup>,
    private readonly id: string | undefined,
    readonly outputSchemas: boolean,
  ) {}

  /** The groups listed now: those asked for, with those the client enabled. */
  groups(menus: ToolMenus, principal: string): Set<ToolGroup> {
    const groups = new Set(this.base);
    if (this.id !== undefined) for (const g of menus.enabled(principal, this.id)) groups.add(g);
    return groups;
  }

  /** The tools the client enabled one by one (tools_enable's `tools`). */
  tools(menus: ToolMenus, principal: string): ReadonlySet<string> {
    return this.id === undefined ? new Set() : menus.enabledTools(principal, this.id);
  }

  /**
   * Enables groups and single tools for the client (`tools` already left out when their group is
   * listed); whether the list changed, or why it cannot be kept.
   */
  enable(
    menus: ToolMenus,
    principal: string,
    groups: readonly ToolGroup[],
    tools: readonly string[] = [],
  ): boolean | ServiceError {
    const before = this.groups(menus, principal);
    const listed = this.tools(menus, principal);
    if (groups.every((g) => before.has(g)) && tools.every((t) => listed.has(t))) return false;
    if (this.id === undefined)
      return new ServiceError(
        'INVALID_REQUEST',
        `${TOOLS_ENABLE} needs the Mcp-Session-Id this service answers initialize with, sent back on every request; this request has none. Ask for the groups when connecting instead: /mcp?${GROUPS_QUERY}=${groups.join(',') || 'page'}`,
        { groups, tools },
      );
    menus.enable(principal, this.id, groups, tools);
    return true;
  }
}

/** The menu a POST asks for, or the error for a group name this service does not know. */
export function menuOfRequest(req: Request): RequestMenu | ServiceError {
  const { groups, unknown } = parseGroups([
    ...strings(req.query[GROUPS_QUERY]),
    ...strings(req.headers[GROUPS_HEADER]),
  ]);
  if (unknown.length > 0)
    return new ServiceError(
      'INVALID_REQUEST',
      `Unknown tool group ${JSON.stringify(unknown[0]?.slice(0, 40))} in ${GROUPS_QUERY}: the groups are ${TOOL_GROUPS.join(', ')} and ${ALL_GROUPS}`,
      { groups: [...TOOL_GROUPS, ALL_GROUPS] },
    );
  const id = strings(req.headers[SESSION_HEADER])[0];
  return new RequestMenu(
    groups,
    id !== undefined && MENU_ID.test(id) ? id : undefined,
    strings(req.query[OUTPUT_SCHEMAS_QUERY]).includes('true'),
  );
}
