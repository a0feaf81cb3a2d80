import { Type, type Static } from '@sinclair/typebox';

/**
 * What a session records, declared once: the session's buffers hold these, and logs.pull and
 * network.pull publish the same schemas as their results.
 */
export const ConsoleEntrySchema = Type.Object({
  seq: Type.Integer({
    description: "The entry's seq in the session's event log: a cursor for a pull with since.",
  }),
  type: Type.String({ description: 'log, error, warning, info, debug …, or dialog / popup.' }),
  text: Type.String(),
  location: Type.Optional(Type.String({ description: 'url:line:column of the call.' })),
  timestamp: Type.String(),
});

export const PageErrorEntrySchema = Type.Object({
  seq: Type.Integer({
    description: "The entry's seq in the session's event log: a cursor for a pull with since.",
  }),
  message: Type.String(),
  stack: Type.Optional(Type.String()),
  timestamp: Type.String(),
});

export const NetworkEntrySchema = Type.Object({
  seq: Type.Integer({
    description: "The entry's seq in the session's event log: a cursor for a pull with since.",
  }),
  id: Type.String({
    description:
      "The request's id in its session (r1, r2 …): network.get answers its headers, timing and bodies.",
  }),
  url: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status; null when the request failed without a response.',
  }),
  method: Type.String(),
  resourceType: Type.String({ description: 'document, script, fetch, xhr, image …' }),
  failure: Type.Optional(
    Type.String({ description: 'Why the request failed (net::ERR_…, or blocked by the allow-list).' }),
  ),
  blocked: Type.Optional(Type.Boolean({ description: 'True when the allow-list refused it.' })),
  timestamp: Type.String(),
});

export type ConsoleEntry = Static<typeof ConsoleEntrySchema>;
export type PageErrorEntry = Static<typeof PageErrorEntrySchema>;
export type NetworkEntry = Static<typeof NetworkEntrySchema>;
