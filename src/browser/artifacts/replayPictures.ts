// Pictures for replay: with replay on, a JPEG of the active page after each call that changed
// something, kept by the seq of its action entry (methods/actionTimeline.ts), so a person can step
// through a session, open or closed, action by action. Bounded per session (MAX_REPLAY_BYTES):
// past it the oldest pictures go.
import type { Page } from 'playwright-core';
import { withDeadline } from '../../errors/deadline.js';

/** JPEG quality of a replay picture: readable text at a third of a PNG's bytes. */
export const REPLAY_PICTURE_QUALITY = 60;
/** A picture that takes longer (a page whose main thread is busy) is skipped, not waited for. */
export const REPLAY_PICTURE_TIMEOUT_MS = 2_000;

export class ReplayPictures {
  private readonly pictures = new Map<number, Buffer>();
  private bytes = 0;
  /** Pictures evicted to stay within maxBytes. */
  evicted = 0;

  constructor(readonly maxBytes: number) {}

  /** A picture of the page as it is now; undefined when the page cannot give one in time. */
  static async take(page: Page): Promise<Buffer | undefined> {
    try {
      return await withDeadline(
        page.screenshot({
          type: 'jpeg',
          quality: REPLAY_PICTURE_QUALITY,
          scale: 'css',
          timeout: REPLAY_PICTURE_TIMEOUT_MS,
        }),
        REPLAY_PICTURE_TIMEOUT_MS,
        () => new Error('the replay picture took too long'),
      );
    } catch {
      // A page closing, navigating or frozen gives no picture: the step is kept without one.
      return undefined;
    }
  }

  /** Keeps the picture of action `seq`, evicting the oldest past maxBytes. */
  keep(seq: number, picture: Buffer): void {
    if (picture.length > this.maxBytes) return;
    this.pictures.set(seq, picture);
    this.bytes += picture.length;
    for (const [oldest, kept] of this.pictures) {
      if (this.bytes <= this.maxBytes) break;
      this.pictures.delete(oldest);
      this.bytes -= kept.length;
      this.evicted += 1;
    }
  }

  get(seq: number): Buffer | undefined {
    return this.pictures.get(seq);
  }

  /** The seqs that have a picture, oldest first. */
  get seqs(): number[] {
    return [...this.pictures.keys()];
  }
}
