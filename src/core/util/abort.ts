/**
 * Timers that never outlive their purpose. A pending timer keeps a Durable
 * Object alive (compatibility_date ≥ 2026-10-01), so `AbortSignal.timeout()`
 * for a one-hour deadline would pin an object in memory for that hour after
 * its work ended. These clear their timer as soon as they settle.
 */

/** A signal that fires on `stop` or after `ms`; call `release()` when the guarded work ends. */
export function boundedSignal(stop: AbortSignal, ms: number): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onStop = () => controller.abort(stop.reason);
  const timer = setTimeout(() => controller.abort(new DOMException("deadline reached", "TimeoutError")), ms);
  stop.addEventListener("abort", onStop);
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    },
  };
}

/** Resolves after `ms`, or at once when `stop` fires. */
export function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onStop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      stop.removeEventListener("abort", onStop);
      resolve();
    }, ms);
    stop.addEventListener("abort", onStop);
  });
}

/** `work`, or a rejection naming `what` once `ms` have passed without it settling; the timer never outlives it. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Watches a call that may report progress: once it has reported some, no more for `ms` stalls it
 * (`signal` fires, `stalled` is true). Before its first report a call is never stalled: a tool that
 * reports nothing is held to its deadline only. Call `release()` when the call ends.
 */
export class StallWatch {
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stalled = false;

  constructor(
    private readonly stop: AbortSignal,
    private readonly ms: number,
  ) {
    stop.addEventListener("abort", this.#onStop);
  }

  readonly #onStop = () => this.#controller.abort(this.stop.reason);

  /** Fires on `stop`, or when the call stalls. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get stalled(): boolean {
    return this.#stalled;
  }

  /** The call reported progress: the wait for the next report starts again. */
  progressed(): void {
    if (this.#controller.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#stalled = true;
      this.#controller.abort(new DOMException("no progress", "TimeoutError"));
    }, this.ms);
  }

  release(): void {
    clearTimeout(this.#timer);
    this.stop.removeEventListener("abort", this.#onStop);
  }
}
