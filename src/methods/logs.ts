import { Type } from '@sinclair/typebox';
import { ConsoleEntrySchema, PageErrorEntrySchema } from '../browser/signalEntries.js';
import { defineSessionMethod } from './defineSessionMethod.js';

export const logsPull = defineSessionMethod({
  name: 'logs.pull',
  summary:
    'Drain the console messages (dialogs and popups included) and uncaught page errors buffered since the last pull',
  params: {},
  result: Type.Object({
    console: Type.Array(ConsoleEntrySchema),
    pageErrors: Type.Array(PageErrorEntrySchema),
    dropped: Type.Object(
      { console: Type.Integer(), pageErrors: Type.Integer() },
      { description: 'Entries dropped because the ring buffer (CONSOLE_BUFFER_SIZE) was full.' },
    ),
  }),
  errors: [],
  readOnly: false,
  async handler(_params, { session }) {
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
