/**
 * What this chat instance knows of its calls on their way (docs/architecture.md#where-a-call-runs):
 * what it handed each runner object and has not heard back about, so the next calls go where there
 * is room; the calls sent to the `calls` queue and not claimed yet, so a queue copy arriving
 * meanwhile starts nothing; and the subordinate hand-overs under way. Memory only, lost with the
 * instance, and nothing correct depends on it: the rows and the runners' leases are the record.
 */
/** A call sent to the `calls` queue is normally claimed within milliseconds; a copy this much later sends it again. */
export const RUNNER_PICKUP_GRACE_MS = 5_000;

export class CallRoom {
  readonly #inObjects = new Map<string, { runner: number; weight: number }>();
  /** Sent to the `calls` queue, not claimed by a runner yet: when. */
  readonly #toQueue = new Map<string, number>();
  readonly #toChildren = new Set<string>();

  /** The call was claimed for runner object `runner`, where it takes `weight`. */
  handed(jobId: string, runner: number, weight: number): void {
    this.#inObjects.set(jobId, { runner, weight });
  }

  /** The call's runner reported, lost it, or the chat ended it: its room is free. */
  left(jobId: string): void {
    this.#inObjects.delete(jobId);
  }

  /** What each runner object was handed and has not reported (the object itself enforces its budget). */
  objectLoads(): number[] {
    const loads: number[] = [];
    for (const { runner, weight } of this.#inObjects.values()) loads[runner] = (loads[runner] ?? 0) + weight;
    return loads;
  }

  /** Calls sent to the `calls` queue: a queue copy arriving before a runner claims them starts nothing. */
  sentToQueue(jobIds: string[], at: number): void {
    for (const id of jobIds) this.#toQueue.set(id, at);
  }

  /** A runner claimed the call: from now on the row says who holds it. */
  takenFromQueue(jobId: string): void {
    this.#toQueue.delete(jobId);
  }

  /** Whether the call was sent to the queue recently enough to be still on its way (a later copy sends it again). */
  onItsWayToQueue(jobId: string, now: number): boolean {
    const at = this.#toQueue.get(jobId);
    if (at === undefined) return false;
    if (now - at < RUNNER_PICKUP_GRACE_MS) return true;
    this.#toQueue.delete(jobId);
    return false;
  }

  /** A subordinate's hand-over to its child chat is under way (or over): a second one would only repeat it. */
  handingToChild(jobId: string): boolean {
    if (this.#toChildren.has(jobId)) return false;
    this.#toChildren.add(jobId);
    return true;
  }

  handedToChild(jobId: string): void {
    this.#toChildren.delete(jobId);
  }

  isHandingToChild(jobId: string): boolean {
    return this.#toChildren.has(jobId);
  }

  /** The chat ended the job: whatever this instance knew of it goes. */
  stop(jobId: string): void {
    this.#inObjects.delete(jobId);
    this.#toQueue.delete(jobId);
  }
}
