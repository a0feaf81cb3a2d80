import { getHeapStatistics } from 'node:v8';
import type { Logger } from './logger.js';

/** How often memory is sampled: often enough to see a flood coming, cheap (no allocation). */
export const MEMORY_SAMPLE_INTERVAL_MS = 1000;
/** The default high water: this share of V8's heap limit, leaving room to finish what runs. */
export const DEFAULT_HIGH_WATER_SHARE = 0.75;
/** Back below this share of the high water, new work is admitted again (no flapping at the line). */
const LOW_WATER_SHARE = 0.85;

export interface MemorySample {
  /** Bytes the service holds in its JavaScript heap and in buffers outside it. */
  used: number;
}

/** The service's own memory: the heap plus the buffers (CDP messages, bodies) held outside it. */
export function sampleMemory(): MemorySample {
  const usage = process.memoryUsage();
  return { used: usage.heapUsed + usage.external + usage.arrayBuffers };
}

/** MEMORY_HIGH_WATER_MB, or the default share of this process's heap limit. */
export function highWaterBytes(configuredMb: number): number {
  if (configuredMb > 0) return configuredMb * 1024 * 1024;
  return Math.floor(getHeapStatistics().heap_size_limit * DEFAULT_HIGH_WATER_SHARE);
}

/**
 * Watches the service's memory. Past the high water it says so (`overloaded`), so dispatch refuses
 * new work that could grow memory while the calls that free it (closing sessions, pulling buffers)
 * still run; it clears once memory is back under the low water. A service that refuses is better
 * than one the kernel or V8 kills with every session in it.
 */
export class MemoryWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private over = false;

  constructor(
    readonly highWater: number,
    private readonly logger: Logger,
    private readonly sample: () => MemorySample = sampleMemory,
  ) {}

  get overloaded(): boolean {
    return this.over;
  }

  start(): void {
    this.check();
    this.timer = setInterval(() => this.check(), MEMORY_SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sample; public so a test can step it. */
  check(): void {
    const { used } = this.sample();
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    if (!this.over && used > this.highWater) {
      this.over = true;
      this.logger.warn(
        { usedMb: mb(used), highWaterMb: mb(this.highWater) },
        'memory past the high water: refusing new work until it falls',
      );
    } else if (this.over && used < this.highWater * LOW_WATER_SHARE) {
      this.over = false;
      this.logger.info(
        { usedMb: mb(used), highWaterMb: mb(this.highWater) },
        'memory back under the high water',
      );
    }
  }
}
