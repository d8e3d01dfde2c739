/**
 * In-memory wake-ups for requests waiting on jobs (docs/api.md#waiting-and-collecting: completion wakes
 * a waiting request at once, no polling). Only a live request waits here, so
 * losing this on eviction loses nothing durable: the request fails with 503 and
 * the jobs stay awaitable.
 */
interface Waiter {
  done: () => boolean;
  wake: () => void;
}

export class Waiters {
  readonly #waiting = new Set<Waiter>();

  /** Resolves `true` when `done()` holds, `false` when `ms` passed first. */
  until(done: () => boolean, ms: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        done,
        wake: () => {
          clearTimeout(timer);
          this.#waiting.delete(waiter);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.delete(waiter);
        resolve(false);
      }, ms);
      this.#waiting.add(waiter);
    });
  }

  /** Called after any job changes state. */
  notify(): void {
    for (const waiter of [...this.#waiting]) if (waiter.done()) waiter.wake();
  }

  get size(): number {
    return this.#waiting.size;
  }
}
