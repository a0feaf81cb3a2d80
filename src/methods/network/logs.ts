import { Type } from '@sinclair/typebox';
import { ConsoleEntrySchema, PageErrorEntrySchema } from '../../browser/events/signalEntries.js';
import type { ConsoleEntry, PageErrorEntry } from '../../browser/events/signalEntries.js';
import { defineSessionMethod } from '../defineSessionMethod.js';
import { CursorResult, readSince, SinceParam, text } from './logCursor.js';

export const logsPull = defineSessionMethod({
  name: 'logs.pull',
  summary:
    'Drain the console messages (dialogs and popups included) and uncaught page errors buffered since the last pull, or read them after a cursor (since) without draining',
  params: { since: SinceParam },
  result: Type.Object({
    console: Type.Array(ConsoleEntrySchema),
    pageErrors: Type.Array(PageErrorEntrySchema),
    dropped: Type.Object(
      { console: Type.Integer(), pageErrors: Type.Integer() },
      {
        description:
          "Entries dropped because the ring buffer (CONSOLE_BUFFER_SIZE) was full. With since: in both fields, the entries after since that the session's event log (MAX_SESSION_EVENTS, every kind) no longer holds.",
      },
    ),
    cursor: CursorResult,
  }),
  errors: ['INVALID_PARAMS'],
  readOnly: false,
  async handler(params, { session }) {
    if (params.since !== undefined) {
      const read = readSince(session, 'logs.pull', params.since, ['console', 'pageerror', 'crash']);
      const consoleEntries: ConsoleEntry[] = [];
      const pageErrors: PageErrorEntry[] = [];
      for (const e of read.events) {
        if (e.kind === 'console') {
          const location = text(e, 'location');
          consoleEntries.push({
            seq: e.seq,
            type: text(e, 'level') ?? 'log',
            text: text(e, 'text') ?? '',
            ...(location === undefined ? {} : { location }),
            timestamp: e.timestamp,
          });
        } else {
          const stack = text(e, 'stack');
          pageErrors.push({
            seq: e.seq,
            message: text(e, 'message') ?? '',
            ...(stack === undefined ? {} : { stack }),
            timestamp: e.timestamp,
          });
        }
      }
      return {
        console: consoleEntries,
        pageErrors,
        dropped: { console: read.dropped, pageErrors: read.dropped },
        cursor: read.cursor,
      };
    }
    const consoleEntries = session.console.drain();
    const errors = session.pageErrors.drain();
    return {
      console: consoleEntries.items,
      pageErrors: errors.items,
      dropped: { console: consoleEntries.dropped, pageErrors: errors.dropped },
    };
  },
});

export const logsMethods = [logsPull];
