/**
 * What this chat instance knows of its calls on their way (docs/architecture.md#where-a-call-runs):
 * the weight of what it handed each runner object and has not heard back about; hand-overs that
 * failed, so the next try backs off; the calls sent to the `calls` queue and not claimed yet, so a queue copy arriving
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
  /** Hand-overs to invocations that failed in a row, by job: the next try waits longer each time. */
  readonly #handOverFailures = new Map<string, number>();

  /** The call was claimed for runner object `runner`, where it takes `weight`. */
  handed(jobId: string, runner: number, weight: number): void {
    this.#inObjects.set(jobId, { runner, weight });
  }

  /** The call left its runner object (taken back from it): its room there is free. */
  left(jobId: string): void {
    this.#inObjects.delete(jobId);
  }

  /** The weight of each call handed to a runner object and not reported (the rows say which object holds it). */
  objectWeights(): Map<string, number> {
    return new Map([...this.#inObjects].map(([id, { weight }]) => [id, weight]));
  }

  /** A hand-over of the call to an invocation failed again: how many times in a row now. */
  handOverFailed(jobId: string): number {
    const failures = (this.#handOverFailures.get(jobId) ?? 0) + 1;
    this.#handOverFailures.set(jobId, failures);
    return failures;
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

  /** The job ended (its runner reported, or the chat ended it): whatever this instance knew of it goes. */
  stop(jobId: string): void {
    this.#inObjects.delete(jobId);
    this.#toQueue.delete(jobId);
    this.#handOverFailures.delete(jobId);
  }
}
