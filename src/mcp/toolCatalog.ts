import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { MethodInfo } from '../rpc/defineMethod.js';
import { toolAnnotations } from './toolAnnotations.js';
import { isListed, NOT_TOOLS, PUSH_ONLY, type ToolAvailability } from './toolAvailability.js';
import { CORE_GROUP, groupOf, type ToolGroup } from './toolGroups.js';
import { toolInputSchema } from './toolSchemas.js';
import { toolsEnableTool } from './toolsEnable.js';
import { outputSchemaOf } from './toolOutput.js';
import { toolText } from './toolTexts.js';

/**
 * What the default menu (the core group and tools_enable) may cost a model request, in characters
 * of JSON.stringify({name, description, inputSchema}) summed over its tools: every MCP client sends
 * the list with every request (@playwright/mcp's is about 17,600). mcpMenu.test.ts holds it.
 */
export const CORE_MENU_BUDGET_CHARS = 15_000;

/** MCP tool names allow `[A-Za-z0-9_-]` everywhere clients check them: `page.goto` is `page_goto`. */
export function toolName(method: string): string {
  return method.replace(/\./g, '_');
}

/**
 * The MCP tool of a method: a description written for a model (toolTexts.ts), its params as the
 * input schema (toolSchemas.ts; `brief` for the core menu), the annotations of toolAnnotations.ts,
 * and, when asked for, its result schema as the output schema.
 */
export function toolOf(def: MethodInfo, brief: boolean, withOutput: boolean): Tool {
  return {
    name: toolName(def.name),
    title: toolAnnotations(def).title,
    description: toolText(def.name, def.summary),
    inputSchema: toolInputSchema(def, brief),
    ...(withOutput ? { outputSchema: outputSchemaOf(def) } : {}),
    annotations: toolAnnotations(def),
  };
}

interface Entry {
  readonly def: MethodInfo;
  /** Undefined for the push-only methods: never listed, callable to hear why. */
  readonly group: ToolGroup | undefined;
  readonly tool: Tool;
  readonly withOutput: Tool;
}

/**
 * Every method that can be an MCP tool, projected once, with its group: what a menu lists and
 * what a call may reach. A method of the table in no group (and not push-only) stops the start-up,
 * so no method is left unreachable over MCP.
 */
export class ToolCatalog {
  private readonly entries: Map<string, Entry>;

  constructor(defs: readonly MethodInfo[]) {
    this.entries = new Map();
    for (const def of defs) {
      if (NOT_TOOLS.has(def.name)) continue;
      const group = groupOf(def.name);
      if (group === undefined && !PUSH_ONLY.has(def.name))
        throw new Error(`${def.name} is in no MCP tool group: add it to src/mcp/toolGroups.ts`);
      const brief = group === CORE_GROUP;
      this.entries.set(toolName(def.name), {
        def,
        group,
        tool: toolOf(def, brief, false),
        withOutput: toolOf(def, brief, true),
      });
    }
  }

  /** The method behind a tool name, and its group. */
  lookup(name: string): { def: MethodInfo; group: ToolGroup | undefined } | undefined {
    return this.entries.get(name);
  }

  /** The tools of these groups and these single tools that can work here, tools_enable first. */
  list(
    groups: ReadonlySet<ToolGroup>,
    availability: ToolAvailability,
    withOutput: boolean,
    single: ReadonlySet<string> = new Set(),
  ): Tool[] {
    const tools: Tool[] = [toolsEnableTool];
    for (const entry of this.entries.values()) {
      if (entry.group === undefined) continue;
      if (!groups.has(entry.group) && !single.has(entry.tool.name)) continue;
      if (!isListed(entry.def.name, availability)) continue;
      tools.push(withOutput ? entry.withOutput : entry.tool);
    }
    return tools;
  }

  /** The tool names of a group, as tools_enable reports them. */
  namesOf(group: ToolGroup): string[] {
    return [...this.entries.values()].filter((e) => e.group === group).map((e) => e.tool.name);
  }
}
