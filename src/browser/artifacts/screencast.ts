// The live view of the web console (GET /sessions/{id}/screencast): one CDP screencast per watched
// session, on its active page, shared by every viewer of that session. Chromium sends the next frame
// only once the last one is acknowledged, so delaying the acknowledgement is what bounds the rate.
import type { CDPSession, Page } from 'playwright-core';
import type { SessionCaller } from '../engine/sessionOwners.js';

/** Frames per second a screencast sends at most (the acknowledgement of a frame waits for it). */
export const SCREENCAST_MAX_FPS = 2;
/** The largest frame Chromium encodes; a larger viewport is scaled down to fit. */
export const SCREENCAST_MAX_WIDTH = 1024;
export const SCREENCAST_MAX_HEIGHT = 768;
/** JPEG quality of a frame (0–100). */
export const SCREENCAST_JPEG_QUALITY = 60;
/**
 * The largest frame a viewer that asks for full size (`?size=full`: zoomed or full screen) gets:
 * the page's own size up to this, so a 1920 × 1080 viewport is read at 100 % and a larger or
 * high-density one cannot make each frame a multi-megabyte picture.
 */
export const SCREENCAST_FULL_MAX_WIDTH = 1920;
export const SCREENCAST_FULL_MAX_HEIGHT = 1200;
/** JPEG quality of a full-size frame: read at 100 %, text must stay sharp. */
export const SCREENCAST_FULL_JPEG_QUALITY = 80;
/** Viewers one session may have at once; one more is refused (HTTP 429). */
export const SCREENCAST_MAX_VIEWERS = 4;
/** How often a screencast looks whether its session ended or its active page changed. */
export const SCREENCAST_CHECK_MS = 500;

/** The bounds above as the hub reads them: one encoding per size a viewer may ask for. */
export const SCREENCAST_LIMITS: ScreencastLimits = {
  maxFps: SCREENCAST_MAX_FPS,
  encodings: {
    fit: {
      maxWidth: SCREENCAST_MAX_WIDTH,
      maxHeight: SCREENCAST_MAX_HEIGHT,
      quality: SCREENCAST_JPEG_QUALITY,
    },
    full: {
      maxWidth: SCREENCAST_FULL_MAX_WIDTH,
      maxHeight: SCREENCAST_FULL_MAX_HEIGHT,
      quality: SCREENCAST_FULL_JPEG_QUALITY,
    },
  },
  maxViewers: SCREENCAST_MAX_VIEWERS,
  checkMs: SCREENCAST_CHECK_MS,
};

export interface ScreencastFrame {
  /** The JPEG, base64. */
  data: string;
  width: number;
  height: number;
  /** Frames of this screencast, counting from 1. */
  seq: number;
  /** Milliseconds since the epoch when the frame arrived. */
  timestamp: number;
  /** The page's URL when the frame arrived. */
  url: string;
}

/** How large a viewer wants its frames: the small box's default, or the page's own size (capped). */
export type ScreencastSize = 'fit' | 'full';

/**
 * One viewer: it takes frames as they come (and drops what it cannot send), hears the page's URL
 * change (a navigation that draws nothing new, a pushState), and hears the end.
 */
export interface ScreencastViewer {
  frame(frame: ScreencastFrame): void;
  location(url: string): void;
  end(reason: 'closed' | 'shutdown'): void;
}

/** What a screencast needs of a session: its active page, and whether it ended. */
export interface CastSession {
  readonly page: Page;
  readonly ended: unknown;
}

/** What the hub needs of the registry: a lookup scoped to the caller, and one that is not. */
export interface CastSessions {
  lookup(id: string, caller: SessionCaller): CastSession | undefined;
  get(id: string): CastSession | undefined;
}

/** What Chromium is asked for: the largest frame and its JPEG quality. */
export interface ScreencastEncoding {
  maxWidth: number;
  maxHeight: number;
  quality: number;
}

export interface ScreencastLimits {
  maxFps: number;
  /** Per size a viewer may ask for. */
  encodings: Record<ScreencastSize, ScreencastEncoding>;
  /** Viewers of one session, of both sizes together. */
  maxViewers: number;
  checkMs: number;
}

interface FrameEvent {
  data: string;
  sessionId: number;
  metadata: { deviceWidth?: number; deviceHeight?: number };
}

/** The screencast of one session: started with its first viewer, stopped with its last. */
class Cast {
  readonly viewers = new Set<ScreencastViewer>();
  private last: ScreencastFrame | undefined;
  /** The URL viewers last heard, in a frame or a location. */
  private url: string | undefined;
  private seq = 0;
  private page: Page | undefined;
  private cdp: CDPSession | undefined;
  /** Bumped at every attach and at the stop: a late frame or attach of an older one is ignored. */
  private epoch = 0;
  private lastAckAt = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly checker: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly sessionId: string,
    private readonly sessions: CastSessions,
    private readonly limits: ScreencastLimits,
    private readonly encoding: ScreencastEncoding,
    private readonly gone: () => void,
  ) {
    this.checker = setInterval(() => this.check(), limits.checkMs);
    this.checker.unref();
  }

  /** Attaches to the session's active page now, not at the first check. */
  start(): void {
    this.check();
  }

  add(viewer: ScreencastViewer): void {
    if (this.stopped) {
      viewer.end('closed');
      return;
    }
    this.viewers.add(viewer);
    // A page that does not change sends no frame: a new viewer sees the last one at once (once the
    // caller of watch() has its answer and has opened its stream).
    const last = this.last;
    const url = this.url;
    if (last !== undefined || url !== undefined)
      queueMicrotask(() => {
        if (!this.viewers.has(viewer)) return;
        if (last !== undefined) viewer.frame(last);
        if (url !== undefined && url !== last?.url) viewer.location(url);
      });
  }

  remove(viewer: ScreencastViewer): void {
    this.viewers.delete(viewer);
    if (this.viewers.size === 0) this.stop();
  }

  /** Ends every viewer (the session ended, or the service stops) and the screencast. */
  end(reason: 'closed' | 'shutdown'): void {
    for (const viewer of [...this.viewers]) viewer.end(reason);
    this.viewers.clear();
    this.stop();
  }

  private check(): void {
    if (this.stopped) return;
    const session = this.sessions.get(this.sessionId);
    if (session === undefined || session.ended !== undefined) {
      this.end('closed');
      return;
    }
    if (session.page !== this.page) void this.attach(session.page);
    else this.tellLocation(session.page.url());
  }

  /** A URL that changed without a new frame (pushState, a navigation that looks the same) is told. */
  private tellLocation(url: string): void {
    if (url === this.url) return;
    this.url = url;
    for (const viewer of this.viewers) viewer.location(url);
  }

  private async attach(page: Page): Promise<void> {
    const epoch = ++this.epoch;
    this.page = page;
    this.detach();
    if (page.isClosed()) return;
    let cdp: CDPSession;
    try {
      cdp = await page.context().newCDPSession(page);
    } catch {
      // The page closed meanwhile: the next check attaches to the page that replaced it.
      if (this.page === page) this.page = undefined;
      return;
    }
    if (epoch !== this.epoch) {
      void cdp.detach().catch(() => undefined /* a page closed meanwhile has no session to detach */);
      return;
    }
    this.cdp = cdp;
    cdp.on('Page.screencastFrame', (event: FrameEvent) => this.onFrame(cdp, event));
    try {
      await cdp.send('Page.startScreencast', {
        format: 'jpeg',
        quality: this.encoding.quality,
        maxWidth: this.encoding.maxWidth,
        maxHeight: this.encoding.maxHeight,
      });
    } catch {
      // The page closed or navigated away from its target meanwhile: the next check starts again.
      if (this.cdp === cdp) {
        this.detach();
        this.page = undefined;
      }
    }
  }

  private onFrame(cdp: CDPSession, event: FrameEvent): void {
    if (cdp !== this.cdp) return;
    const now = Date.now();
    const url = this.page?.url() ?? '';
    this.url = url;
    this.last = {
      data: event.data,
      width: event.metadata.deviceWidth ?? 0,
      height: event.metadata.deviceHeight ?? 0,
      seq: ++this.seq,
      timestamp: now,
      url,
    };
    for (const viewer of this.viewers) viewer.frame(this.last);
    const wait = Math.max(0, this.lastAckAt + 1000 / this.limits.maxFps - now);
    clearTimeout(this.ackTimer);
    this.ackTimer = setTimeout(() => {
      if (cdp !== this.cdp) return;
      this.lastAckAt = Date.now();
      cdp
        .send('Page.screencastFrameAck', { sessionId: event.sessionId })
        .catch(() => undefined /* the page closed: the next check attaches to its successor */);
    }, wait);
  }

  private detach(): void {
    clearTimeout(this.ackTimer);
    const cdp = this.cdp;
    this.cdp = undefined;
    if (cdp === undefined) return;
    // Stopping a screencast of a page that closed fails; there is nothing left to stop then.
    void cdp
      .send('Page.stopScreencast')
      .catch(() => undefined)
      .then(() => cdp.detach())
      .catch(() => undefined);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.epoch++;
    clearInterval(this.checker);
    this.detach();
    this.gone();
  }
}

/** Where a session's screencast of one size is kept: each size is its own CDP screencast. */
function castKey(sessionId: string, size: ScreencastSize): string {
  return `${size}:${sessionId}`;
}

/** Every screencast in progress, by session id and size. */
export class ScreencastHub {
  private readonly casts = new Map<string, Cast>();

  constructor(
    private readonly sessions: CastSessions,
    private readonly limits: ScreencastLimits = SCREENCAST_LIMITS,
  ) {}

  /**
   * Adds a viewer to the session's screencast (starting it): answers the function that removes the
   * viewer, 'not_found' when the caller may not reach the session (another key's session included),
   * or 'full' when the session has SCREENCAST_MAX_VIEWERS already (of both sizes together).
   */
  watch(
    sessionId: string,
    caller: SessionCaller,
    viewer: ScreencastViewer,
    size: ScreencastSize = 'fit',
  ): (() => void) | 'not_found' | 'full' {
    const session = this.sessions.lookup(sessionId, caller);
    if (session === undefined || session.ended !== undefined) return 'not_found';
    const viewers = (['fit', 'full'] as const).reduce(
      (sum, each) => sum + (this.casts.get(castKey(sessionId, each))?.viewers.size ?? 0),
      0,
    );
    if (viewers >= this.limits.maxViewers) return 'full';
    const key = castKey(sessionId, size);
    let cast = this.casts.get(key);
    if (cast === undefined) {
      const created: Cast = new Cast(
        sessionId,
        this.sessions,
        this.limits,
        this.limits.encodings[size],
        () => {
          if (this.casts.get(key) === created) this.casts.delete(key);
        },
      );
      cast = created;
      this.casts.set(key, cast);
      cast.start();
    }
    const joined = cast;
    joined.add(viewer);
    return () => joined.remove(viewer);
  }

  /** Screencasts in progress (the tests read it: the last viewer gone stops its screencast). */
  get active(): number {
    return this.casts.size;
  }

  /** The service stops: every viewer hears the end. */
  closeAll(): void {
    for (const cast of [...this.casts.values()]) cast.end('shutdown');
  }
}
