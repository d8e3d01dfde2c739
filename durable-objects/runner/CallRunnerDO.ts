/**
 * The `object` host of calls (`runner/<tenant>/<chat_id>/<n>`, docs/architecture.md#where-a-call-runs):
 * runs the calls of its chat whose deadline no Worker invocation can hold (past a queue consumer's 15
 * minutes), with the runner every host runs (`src/core/runner/call-runner`). It keeps nothing durable:
 * every call it holds is claimed in the chat and renewed like any runner's, so one lost mid-call (a
 * deploy) stops renewing, and the chat recovers its calls by the attempt rules.
 */
import { DurableObject } from "cloudflare:workers";
import type { RunnerCall } from "../../src/core/jobs/messages";
import { CallRunner } from "../../src/core/runner/call-runner";

export class CallRunnerDO extends DurableObject<Env> {
  /** The runner; tests read what it holds and what it had waiting for headers. */
  readonly runner = new CallRunner(this.env, (work) => this.ctx.waitUntil(work));
  /** What the calls here have waiting for headers, measured (tests hold it to `CALLS_PER_OBJECT`). */
  readonly callMeter = this.runner.meter;

  /** Takes calls; they start at once while there is room, the rest in order as calls end. */
  run(calls: RunnerCall[]): void {
    this.runner.run(calls);
  }

  /** The chat ended the job (cancel, deadline): its call stops and reports nothing. */
  abort(jobId: string): void {
    this.runner.abort(jobId);
  }
}
