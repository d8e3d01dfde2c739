/**
 * A call lane (`lane/<tenant>/<chat_id>/<n>`, docs/architecture.md#call-lanes): runs calls its chat
 * claimed and had no room for, with a runner (`src/runner/call-runner`). It keeps nothing durable:
 * every call it holds is claimed in the chat, so a lane lost mid-call (a deploy) is found by the
 * chat's heartbeat, which asks `holding`, and recovered by the attempt rules like any lost call.
 */
import { DurableObject } from "cloudflare:workers";
import type { LaneCall } from "../../src/jobs/messages";
import { CallRunner } from "../../src/runner/call-runner";

export class LaneDO extends DurableObject<Env> {
  readonly #runner = new CallRunner(this.env, { waitUntil: (work) => this.ctx.waitUntil(work) });
  /** What the calls here have waiting for headers, measured (tests hold it to `CALLS_PER_OBJECT`). */
  readonly callMeter = this.#runner.meter;

  /** Takes calls; they start at once while the lane has room, the rest in order as calls end. */
  run(calls: LaneCall[]): void {
    this.#runner.run(calls);
  }

  /** Which of these jobs the lane still holds: the chat's heartbeat recovers the others. */
  holding(jobIds: string[]): string[] {
    return this.#runner.holding(jobIds);
  }

  /** The chat ended the job (cancel, deadline): its call stops and reports nothing. */
  abort(jobId: string): void {
    this.#runner.abort(jobId);
  }
}
