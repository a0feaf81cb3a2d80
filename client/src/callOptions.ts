/** Options of one call of the typed client. */
export interface CallOptions {
  /** Aborts the HTTP request and any pending retry; an aborted call is never retried. */
  signal?: AbortSignal;
}
