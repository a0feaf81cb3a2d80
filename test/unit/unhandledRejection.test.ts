import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { logUnhandledRejection } from '../../src/cli/serve.js';
import { createLogger } from '../../src/observability/logger.js';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('logUnhandledRejection', () => {
  it('logs the rejection at error level, scrubbed, and does not throw', () => {
    const { lines, stream } = capture();
    const handler = logUnhandledRejection(createLogger('info', stream));
    const reason = new Error('ENOENT: open http://127.0.0.1:9/x?token=s3cret-value failed');
    expect(() => handler(reason)).not.toThrow();
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}') as { level: number; msg: string; err: { message: string } };
    expect(line.level).toBe(50);
    expect(line.msg).toContain('keeps running');
    expect(line.err.message).toContain('ENOENT');
    expect(lines[0]).not.toContain('s3cret-value');
  });

  it('logs a reason that is not an Error too', () => {
    const { lines, stream } = capture();
    logUnhandledRejection(createLogger('info', stream))('plain reason');
    expect(lines[0]).toContain('plain reason');
  });
});
