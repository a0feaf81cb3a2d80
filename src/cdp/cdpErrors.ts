/** Errors of the CDP_URL browser behind tabs.*: each carries its catalogue entry (errors/catalogue.ts). */
import { ServiceError } from '../errors/serviceError.js';

/** CDP_URL is unset, or the browser behind it cannot be reached. */
export class CdpUnavailableError extends ServiceError {
  constructor(
    readonly cdpUrl: string | undefined,
    detail: string,
  ) {
    super('RESOURCE_UNAVAILABLE', detail, { cdpUrl: cdpUrl ?? null });
  }
}

export class TabNotFoundError extends ServiceError {
  constructor(readonly tabId: string) {
    super(
      'ACTION_FAILED',
      `No tab with id ${tabId} in the CDP_URL browser; call tabs.list for the open tabs.`,
      {
        tabId,
      },
    );
  }
}

export class TabCloseError extends ServiceError {
  constructor(
    readonly tabId: string,
    detail: string,
  ) {
    super('ACTION_FAILED', `Tab ${tabId} did not close: ${detail}`, { tabId });
  }
}
