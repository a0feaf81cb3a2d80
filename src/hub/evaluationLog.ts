import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../observability/logger.js';

/**
 * One line of LOG_DIR/evaluations.jsonl. It names what ran and how it ended, never what went in:
 * inputs and model settings (which carry api_keys) stay out of every log.
 */
export interface EvaluationLogEntry {
  evaluationId: string;
  /** The caller that started it: `key:` and a digest of its API key (never the key). */
  principal: string;
  clientId: string | null;
  tool: string;
  /** ISO 8601 time the call reached the hub. */
  started: string;
  /** Milliseconds from arrival to the answer (queue wait included). */
  duration: number;
  /** The agent's result status (success …), or error, timeout, unavailable, rejected. */
  status: string;
  /** The JSON-RPC error code the caller got; null on success. */
  errorCode: number | null;
  /** Bytes of the JSON output the agent returned; null when there was none. */
  outputSize: number | null;
}

/** Appends one JSON line per evaluation; the file and its directory are made on the first line. */
export class EvaluationLog {
  private stream: WriteStream | undefined;
  private failed = false;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  append(entry: EvaluationLogEntry): void {
    if (this.failed || this.closed) return;
    try {
      this.stream ??= this.open();
    } catch (error) {
      this.fail(error);
      return;
    }
    this.stream.write(`${JSON.stringify(entry)}\n`);
  }

  private open(): WriteStream {
    mkdirSync(dirname(this.path), { recursive: true });
    const stream = createWriteStream(this.path, { flags: 'a' });
    stream.on('error', (error) => this.fail(error));
    return stream;
  }

  /** A log that cannot be written must not take evaluations down: say so once and stop trying. */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.logger.error({ err: error, path: this.path }, 'evaluation log cannot be written; no more lines');
  }

  async close(): Promise<void> {
    this.closed = true;
    const stream = this.stream;
    this.stream = undefined;
    if (stream === undefined || stream.destroyed) return;
    await new Promise<void>((resolve) => stream.end(() => resolve()));
  }
}
