// The `since` param logs.pull and network.pull share, and the read of the session's event log it
// makes: entries after the cursor, without draining, plus the next cursor and what was lost.
import { Type } from '@sinclair/typebox';
import type { Session } from '../../browser/session/session.js';
import type { EventKind, LogEvent, LogRead } from '../../browser/events/sessionLog.js';
import { ServiceError } from '../../errors/serviceError.js';

export const SinceParam = Type.Optional(
  Type.Integer({
    minimum: 0,
    description:
      "A cursor: the last seq you saw (0 for everything the log still holds). The pull then reads the session's event log after it without draining (two readers both see every entry) and answers the next cursor; without since it drains as before.",
  }),
);

export const CursorResult = Type.Optional(
  Type.Integer({ description: 'With since: the cursor to pass as since next time.' }),
);

/** Reads the session's log after `since`, or says why the cursor is not one of this session's. */
export function readSince(session: Session, method: string, since: number, kinds: EventKind[]): LogRead {
  const latest = session.log.latest;
  if (since > latest)
    throw new ServiceError(
      'INVALID_PARAMS',
      `Invalid params for ${method}: since ${since} is past the newest entry of this session's log (${latest}); pass a seq an earlier answer gave, or 0.`,
      {
        errors: [{ path: '/since', message: `must be at most ${latest}`, keyword: 'maximum', params: {} }],
      },
    );
  return session.log.since(since, new Set(kinds));
}

/** A field of a log entry as the string the pull's schema wants (absent when it is not one). */
export function text(event: LogEvent, name: string): string | undefined {
  const value = event[name];
  return typeof value === 'string' ? value : undefined;
}
