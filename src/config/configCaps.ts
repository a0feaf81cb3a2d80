// The body caps as config keys: what network.get, network.har, network.route,
// session.storageState and a session's clipboard hold or answer at most. Kept apart from
// configKeys.ts and config.ts (both near the file-size limit); their table is spread into
// CONFIG_KEYS and their values into Config.
import { readCaps, type ReadWholeNumber, type RefuseKey } from './configLoaders.js';

const MIB = 1024 * 1024;

/**
 * The most MAX_ROUTE_BODY_BYTES may be set to: network.route's params schema bounds body and
 * bodyBase64 by the same fixed ceiling (ROUTE_BODY_SCHEMA_CEILING_BYTES in browser/network/sessionRoutes.ts,
 * checked equal by a unit test), the handler by the configured cap.
 */
export const ROUTE_BODY_CEILING_BYTES = 64 * MIB;

/**
 * Each key's entry, in CONFIG_KEYS' shape (its `satisfies` checks these too once spread there). The
 * methods' schema texts name the keys, not their values: the values are the operator's.
 */
export const BODY_CAP_KEYS = {
  MAX_NETWORK_BODY_BYTES: {
    default: '1048576',
    group: 'sessions',
    description:
      'network.get and network.har (bodies: true) cut each request and response body at this many bytes (1 MiB), with truncated: true and the whole size. At most 64 MiB.',
  },
  MAX_NETWORK_BODY_FETCH_BYTES: {
    default: '10485760',
    group: 'sessions',
    description:
      'A response body whose known size is over this (10 MiB) is not fetched from the browser at all: network.get and network.har say it is too large. At most 256 MiB.',
  },
  MAX_NETWORK_DETAILS: {
    default: '500',
    group: 'sessions',
    description:
      'Requests per session whose details network.get and network.har read (the most recent ones); an older id fails with INVALID_PARAMS. At most 100000.',
  },
  MAX_HAR_CHARS: {
    default: '8388608',
    group: 'sessions',
    description:
      'The most characters of JSON network.har answers (8 Mi); past it the call fails with LIMIT_REACHED rather than answer part of the log. At most 256 Mi.',
  },
  MAX_ROUTE_BODY_BYTES: {
    default: '5242880',
    group: 'sessions',
    description:
      "Bytes of one network.route fulfill body (5 MiB), body or bodyBase64 decoded; over it the call fails with INVALID_PARAMS. At most 64 MiB and MAX_ROUTE_BODIES_BYTES; a body also has to fit in BODY_LIMIT's request.",
  },
  MAX_ROUTE_BODIES_BYTES: {
    default: '20971520',
    group: 'sessions',
    description:
      "Bytes of one session's route bodies together (20 MiB; they are held in memory); a route that would pass it is refused with LIMIT_REACHED. At most 1 GiB.",
  },
  MAX_STORAGE_STATE_CHARS: {
    default: '8388608',
    group: 'sessions',
    description:
      'The most characters of JSON session.storageState answers (8 Mi); past it the call fails with LIMIT_REACHED. At most 256 Mi.',
  },
  MAX_CLIPBOARD_CHARS: {
    default: '1048576',
    group: 'sessions',
    description:
      "Characters a session's clipboard holds (1 Mi): a longer copy from a page is cut, in the page and in the service. At most 64 Mi.",
  },
  MAX_TRACE_SHARED_BYTES: {
    default: '1073741824',
    group: 'sessions',
    description:
      'Bytes the resources every trace of the browser shares may hold on disk (1 GiB; response bodies and screenshots, kept while any session that traced is open). A traceOnFailure session that finds them over it stops tracing (it says so in its console log). At most 1 TiB.',
  },
} as const;

export type BodyCapKey = keyof typeof BODY_CAP_KEYS;

/** The configured body caps, as Config carries them. */
export interface BodyCaps {
  maxNetworkBodyBytes: number;
  maxNetworkBodyFetchBytes: number;
  maxNetworkDetails: number;
  maxHarChars: number;
  maxRouteBodyBytes: number;
  maxRouteBodiesBytes: number;
  maxStorageStateChars: number;
  maxClipboardChars: number;
  maxTraceSharedBytes: number;
}

/** Reads the body caps with loadConfig's reader, and checks them against each other. */
export function loadBodyCaps(read: ReadWholeNumber<BodyCapKey>, refuse: RefuseKey<BodyCapKey>): BodyCaps {
  return readCaps(
    read,
    refuse,
    {
      maxNetworkBodyBytes: ['MAX_NETWORK_BODY_BYTES', 1, 64 * MIB],
      maxNetworkBodyFetchBytes: ['MAX_NETWORK_BODY_FETCH_BYTES', 1, 256 * MIB],
      maxNetworkDetails: ['MAX_NETWORK_DETAILS', 1, 100_000],
      maxHarChars: ['MAX_HAR_CHARS', 1, 256 * MIB],
      maxRouteBodyBytes: ['MAX_ROUTE_BODY_BYTES', 1, ROUTE_BODY_CEILING_BYTES],
      maxRouteBodiesBytes: ['MAX_ROUTE_BODIES_BYTES', 1, 1024 * MIB],
      maxStorageStateChars: ['MAX_STORAGE_STATE_CHARS', 1, 256 * MIB],
      maxClipboardChars: ['MAX_CLIPBOARD_CHARS', 1, 64 * MIB],
      maxTraceSharedBytes: ['MAX_TRACE_SHARED_BYTES', 1, 1024 * 1024 * MIB],
    },
    // One body over what all of a session's bodies may hold would be refused as too many bodies.
    { item: 'route body', one: 'maxRouteBodyBytes', all: 'maxRouteBodiesBytes' },
  );
}
