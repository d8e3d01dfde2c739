/**
 * In-memory wake-ups for requests waiting on jobs (docs/api.md#waiting-and-collecting: completion wakes
 * a waiting request at once, no polling). Only a live request waits here, so
 * losing this on eviction loses nothing durable: the request fails with 503 and
 * the jobs stay awaitable.
 *
 * A waiter keeps the ids it still waits for and drops each as the job machine reports its end, so
 * the jobs' rows are read once when the wait starts and once more when the last one ends, not on
 * every end in the chat. That last read confirms what memory says: an end whose transaction was
 * rolled back did not happen.
 */
interface Waiter {
  remaining: Set<string>;
  /** The waited-for jobs still active, read from storage. */
  stillActive: () => string[];
  wake: () => void;
}

export class Waiters {
  readonly #waiting = new Set<Waiter>();

  /**
   * Resolves `true` once none of the jobs is active, `false` when `ms` passed first. `stillActive`
   * reads which of them are active now; jobs it does not know count as ended.
   */
  until(stillActive: () => string[], ms: number): Promise<boolean> {
    const active = stillActive();
    if (active.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        remaining: new Set(active),
        stillActive,
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

  /** Called after a job ended (`JobMachine.finish`, the one way into a terminal state). */
  ended(jobId: string): void {
    for (const waiter of [...this.#waiting]) {
      if (!waiter.remaining.delete(jobId) || waiter.remaining.size > 0) continue;
      const active = waiter.stillActive();
      if (active.length === 0) waiter.wake();
      else waiter.remaining = new Set(active);
    }
  }

  get size(): number {
    return this.#waiting.size;
  }
}
