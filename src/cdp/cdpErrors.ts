/** Errors of the CDP_URL browser behind tabs.*; dispatch maps each onto the RPC catalogue (rpc/mapError.ts). */

/** CDP_URL is unset, or the browser behind it cannot be reached. */
export class CdpUnavailableError extends Error {
  constructor(
    readonly cdpUrl: string | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'CdpUnavailableError';
  }
}

export class TabNotFoundError extends Error {
  constructor(readonly tabId: string) {
    super(`No tab with id ${tabId} in the CDP_URL browser; call tabs.list for the open tabs.`);
    this.name = 'TabNotFoundError';
  }
}

export class TabCloseError extends Error {
  constructor(
    readonly tabId: string,
    detail: string,
  ) {
    super(`Tab ${tabId} did not close: ${detail}`);
    this.name = 'TabCloseError';
  }
}
