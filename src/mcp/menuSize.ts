// The one measure of what an MCP tool list costs.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a tool list costs a model request, as this project measures it (the default menu's budget,
 * MCP clients' requests, the bench): for each tool, JSON.stringify({name, description,
 * inputSchema}), summed; an output schema counts too when a list carries one.
 */
export function menuChars(tools: readonly Tool[]): number {
  return tools.reduce(
    (sum, t) =>
      sum +
      JSON.stringify({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
      }).length,
    0,
  );
}
