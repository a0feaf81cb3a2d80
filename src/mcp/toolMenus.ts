import { randomUUID } from 'node:crypto';
import type { ToolGroup } from './toolGroups.js';

/** Menus kept in all: each is a few group names, but the map must not grow with every client. */
export const MAX_TOOL_MENUS = 4096;
/** Menus kept per API key, so that one key's clients cannot push every other key's menus out. */
export const MAX_TOOL_MENUS_PER_KEY = 256;
/** A menu no request used for this long is forgotten (its client then sees its URL's groups). */
export const TOOL_MENU_IDLE_MS = 6 * 60 * 60 * 1000;

interface Menu {
  readonly principal: string;
  readonly id: string;
  readonly groups: Set<ToolGroup>;
  /** Tools enabled one by one (tools_enable's `tools`), by tool name. */
  readonly tools: Set<string>;
  usedAt: number;
}

/**
 * The groups each MCP client enabled with tools_enable, beyond those its URL asks for. /mcp is
 * stateless, so what ties a client's requests together is the Mcp-Session-Id this service hands
 * out at initialize and the client sends back on every request; a menu is kept under that id and
 * the caller's key (another key sending the same id sees none of it), only once a group is enabled,
 * bounded in number and forgotten when idle. One instance per /mcp router, in this process: behind a
 * load balancer, another replica does not see it (docs/transports.md).
 */
export class ToolMenus {
  /** Every menu, least recently used first. */
  private readonly menus = new Map<string, Menu>();
  /** Each key's menus, least recently used first. */
  private readonly byKey = new Map<string, Map<string, Menu>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new menu id, for an initialize answer's Mcp-Session-Id (nothing is kept until an enable). */
  static newId(): string {
    return `m_${randomUUID()}`;
  }

  /** The groups the client of this id enabled, or an empty set. */
  enabled(principal: string, id: string): ReadonlySet<ToolGroup> {
    const menu = this.touch(principal, id);
    return menu?.groups ?? new Set();
  }

  /** The tools the client of this id enabled one by one, or an empty set. */
  enabledTools(principal: string, id: string): ReadonlySet<string> {
    return this.touch(principal, id)?.tools ?? new Set();
  }

  /** Adds groups and single tools to the client's menu; answers whether any of them was new. */
  enable(
    principal: string,
    id: string,
    groups: readonly ToolGroup[],
    tools: readonly string[] = [],
  ): boolean {
    const menu = this.touch(principal, id) ?? this.create(principal, id);
    const before = menu.groups.size + menu.tools.size;
    for (const group of groups) menu.groups.add(group);
    for (const tool of tools) menu.tools.add(tool);
    return menu.groups.size + menu.tools.size > before;
  }

  /** How many menus are kept (for tests of the bounds). */
  get size(): number {
    return this.menus.size;
  }

  private static keyOf(principal: string, id: string): string {
    return `${principal}\n${id}`;
  }

  /** The live menu of a client, moved to the most recently used end; an idle one is dropped. */
  private touch(principal: string, id: string): Menu | undefined {
    const menu = this.menus.get(ToolMenus.keyOf(principal, id));
    if (menu === undefined) return undefined;
    this.remove(menu);
    if (this.now() - menu.usedAt > TOOL_MENU_IDLE_MS) return undefined;
    menu.usedAt = this.now();
    this.insert(menu);
    return menu;
  }

  private create(principal: string, id: string): Menu {
    this.pruneIdle();
    const own = this.byKey.get(principal);
    const oldestOwn = own?.values().next().value;
    if (own !== undefined && own.size >= MAX_TOOL_MENUS_PER_KEY && oldestOwn !== undefined)
      this.remove(oldestOwn);
    const oldest = this.menus.values().next().value;
    if (this.menus.size >= MAX_TOOL_MENUS && oldest !== undefined) this.remove(oldest);
    const menu: Menu = { principal, id, groups: new Set(), tools: new Set(), usedAt: this.now() };
    this.insert(menu);
    return menu;
  }

  /** Drops the idle menus at the least recently used end. */
  private pruneIdle(): void {
    for (const menu of this.menus.values()) {
      if (this.now() - menu.usedAt <= TOOL_MENU_IDLE_MS) return;
      this.remove(menu);
    }
  }

  private insert(menu: Menu): void {
    this.menus.set(ToolMenus.keyOf(menu.principal, menu.id), menu);
    let own = this.byKey.get(menu.principal);
    if (own === undefined) {
      own = new Map();
      this.byKey.set(menu.principal, own);
    }
    own.set(menu.id, menu);
  }

  private remove(menu: Menu): void {
    this.menus.delete(ToolMenus.keyOf(menu.principal, menu.id));
    const own = this.byKey.get(menu.principal);
    own?.delete(menu.id);
    if (own?.size === 0) this.byKey.delete(menu.principal);
  }
}
