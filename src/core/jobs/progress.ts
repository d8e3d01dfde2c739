/**
 * A running MCP tool's progress (`progress` in docs/api.md#payloads): what is kept of one
 * `notifications/progress`, and how often it is written. A tool may report many
 * times a second, and every write of the job's row is billed, so the chat keeps
 * at most one a second per job, always the latest (`LatestEvery`).
 */

/** The snapshot's `progress`, keys in contract order. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** At most one write of a job's progress per this interval (docs/api.md#payloads). */
export const PROGRESS_INTERVAL_MS = 1_000;
/** A status line, not a log: longer messages are cut. */
export const PROGRESS_MESSAGE_MAX_CHARS = 500;

/** What is kept of a notification's params, or undefined when it has no usable `progress`. */
export function keptProgress(raw: { progress?: unknown; total?: unknown; message?: unknown }): Progress | undefined {
  if (typeof raw.progress !== "number" || !Number.isFinite(raw.progress)) return undefined;
  const kept: Progress = { progress: raw.progress };
  if (typeof raw.total === "number" && Number.isFinite(raw.total)) kept.total = raw.total;
  if (typeof raw.message === "string") kept.message = [...raw.message].slice(0, PROGRESS_MESSAGE_MAX_CHARS).join("");
  return kept;
}

/** Time as `LatestEvery` needs it; injected so the rule can be tested without waiting. */
export interface Clock {
  now(): number;
  /** Runs `fn` after `ms`; the returned function cancels it. */
  later(fn: () => void, ms: number): () => void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  later: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * Hands values to `write` at most once per `intervalMs`: the first at once, and any that come
 * sooner after a write wait for the interval to end, only the latest of them being written.
 * `stop()` drops a value still waiting (the job ended, so nothing would show it).
 */
export class LatestEvery<T> {
  #lastWrite = Number.NEGATIVE_INFINITY;
  #waiting: { value: T } | undefined;
  #cancel: (() => void) | undefined;
  #stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly write: (value: T) => void,
    private readonly clock: Clock = realClock,
  ) {}

  offer(value: T): void {
    if (this.#stopped) return;
    const now = this.clock.now();
    if (!this.#cancel && now - this.#lastWrite >= this.intervalMs) {
      this.#write(value, now);
      return;
    }
    this.#waiting = { value };
    this.#cancel ??= this.clock.later(() => this.#flush(), this.#lastWrite + this.intervalMs - now);
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel?.();
    this.#cancel = undefined;
    this.#waiting = undefined;
  }

  #flush(): void {
    this.#cancel = undefined;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting && !this.#stopped) this.#write(waiting.value, this.clock.now());
  }

  #write(value: T, now: number): void {
    this.#lastWrite = now;
    this.write(value);
  }
}
