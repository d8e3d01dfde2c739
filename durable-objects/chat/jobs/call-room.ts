/**
 * What this chat instance knows of where its calls run (docs/architecture.md#call-lanes): the calls
 * it runs itself, each with what stops it; the ones placed here and on their way to an invocation;
 * and the ones handed to each lane and not heard back about. Memory only, lost with the instance:
 * that loss is what the heartbeat looks for, and why a lane is asked, never trusted to this.
 */
/** A call sent to the `calls` queue is normally claimed within milliseconds; a copy this much later sends it again. */
export const RUNNER_PICKUP_GRACE_MS = 5_000;

export class CallRoom {
  /** Placed here: running (with `stop`) or reserved on its way (without). */
  readonly #here = new Map<string, { weight: number; stop?: AbortController }>();
  readonly #inLanes = new Map<string, { lane: number; weight: number; at: number }>();
  /** Sent to the `calls` queue, not claimed by a runner yet: when. */
  readonly #toRunners = new Map<string, number>();

  /** Room taken for a call on its way to an invocation of its own. */
  reserve(jobId: string, weight: number): void {
    if (!this.#here.has(jobId)) this.#here.set(jobId, { weight });
  }

  /** The reservation ends, whether or not the call began (a call that began keeps its room). */
  unreserve(jobId: string): void {
    if (this.#here.get(jobId)?.stop === undefined) this.#here.delete(jobId);
  }

  /** The call leaves from here; what it is given stops it. */
  begin(jobId: string, weight: number): AbortController {
    const stop = new AbortController();
    this.#here.set(jobId, { weight, stop });
    return stop;
  }

  /** The call that `stop` belonged to is over (a later call of the same job keeps its entry). */
  ended(jobId: string, stop: AbortController): void {
    if (this.#here.get(jobId)?.stop === stop) this.#here.delete(jobId);
  }

  isRunningHere(jobId: string): boolean {
    return this.#here.get(jobId)?.stop !== undefined;
  }

  /** The chat ended the job: its call here stops, and its lane's room is free. */
  stop(jobId: string): void {
    this.#here.get(jobId)?.stop?.abort(new DOMException("job stopped", "AbortError"));
    this.#here.delete(jobId);
    this.#inLanes.delete(jobId);
    this.#toRunners.delete(jobId);
  }

  /** Calls sent to Worker runners: a queue copy arriving before a runner claims them starts nothing. */
  sentToRunner(jobIds: string[], at: number): void {
    for (const id of jobIds) this.#toRunners.set(id, at);
  }

  /** A runner claimed the call: from now on the row says who holds it. */
  takenByRunner(jobId: string): void {
    this.#toRunners.delete(jobId);
  }

  /** Whether the call was sent to a runner recently enough to be still on its way (a later copy sends it again). */
  onItsWayToRunner(jobId: string, now: number): boolean {
    const at = this.#toRunners.get(jobId);
    if (at === undefined) return false;
    if (now - at < RUNNER_PICKUP_GRACE_MS) return true;
    this.#toRunners.delete(jobId);
    return false;
  }

  handed(jobId: string, lane: number, weight: number, at: number): void {
    this.#inLanes.set(jobId, { lane, weight, at });
  }

  /** When this instance handed the job to a lane, if it did. */
  handedAt(jobId: string): number | undefined {
    return this.#inLanes.get(jobId)?.at;
  }

  /** The lane reported, or said it no longer holds the call. */
  laneEnded(jobId: string): void {
    this.#inLanes.delete(jobId);
  }

  /** The chat's own load: calls running here and those on their way. */
  hereLoad(): number {
    let load = 0;
    for (const { weight } of this.#here.values()) load += weight;
    return load;
  }

  /** What each lane was handed and has not reported (the lane itself enforces its budget). */
  laneLoads(): number[] {
    const loads: number[] = [];
    for (const { lane, weight } of this.#inLanes.values()) loads[lane] = (loads[lane] ?? 0) + weight;
    return loads;
  }

  /** Whether any call here or in a lane is one this instance would have to see through. */
  holdsAny(): boolean {
    return [...this.#here.values()].some((c) => c.stop !== undefined) || this.#inLanes.size > 0;
  }
}
