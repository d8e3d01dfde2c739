/**
 * The `invocation` host (`./call-host`): a Worker invocation the chat starts itself, for calls whose
 * deadline falls within the grace `ctx.waitUntil` gives an invocation after it has answered. The
 * chat claims the calls and hands them over in one RPC, answered at once; the calls then wait here,
 * billed for CPU only, with no queue message on their path. The deadline is what makes this
 * invocation a safe owner: a call ends, or is cut off by its runner at the deadline, before the
 * grace runs out, so nothing it started is left for the attempt rules to guess about.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { RunnerCall } from "../core/jobs/messages";
import { CallRunner } from "../core/runner/call-runner";

export class DirectRunner extends WorkerEntrypoint<Env> {
  /** Takes calls the chat claimed for this invocation; they go on after the answer. */
  run(calls: RunnerCall[]): void {
    new CallRunner(this.env, (work) => this.ctx.waitUntil(work)).run(calls);
  }
}
