/**
 * Counts an object's tool calls that are waiting for response headers: what
 * production limits (docs/architecture.md#platform-rules; a connection stops
 * counting once its headers arrive). Every runner holds calls so that no
 * invocation or object ever has more than `CALLS_PER_OBJECT` waiting; the meter
 * measures what really happened, so a test can hold the placement to it.
 */
import type { Fetch } from "../egress/fetch";

/**
 * Production lets an invocation wait on 6 connections; fanout keeps 2 spare (webhooks, RPC) and places at
 * most 4 calls per object.
 */
export const CALLS_PER_OBJECT = 4;

export class CallMeter {
  #waiting = 0;
  #peak = 0;

  /** The most calls that were waiting for headers at once since the object started. */
  get peak(): number {
    return this.#peak;
  }

  /** Counts `weight` while `work` runs: an MCP call counts 2 for its whole length (its POST and its event stream). */
  async during<T>(weight: number, work: () => Promise<T>): Promise<T> {
    this.#waiting += weight;
    this.#peak = Math.max(this.#peak, this.#waiting);
    try {
      return await work();
    } finally {
      this.#waiting -= weight;
    }
  }

  /** `send`, counted from the request leaving until its headers (or its failure) arrive. */
  wrap(send: Fetch = (input, init) => fetch(input, init)): Fetch {
    return async (input, init) => {
      this.#waiting += 1;
      this.#peak = Math.max(this.#peak, this.#waiting);
      try {
        return await send(input, init);
      } finally {
        this.#waiting -= 1;
      }
    };
  }
}
