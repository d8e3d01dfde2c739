/**
 * A call lane (`lane/<tenant>/<chat_id>/<n>`, docs/architecture.md#call-lanes): runs calls its chat
 * claimed, at most `CALLS_PER_OBJECT` waiting at once (an MCP call counts 2), and reports the
 * outcomes back, those that end together in one call. It keeps nothing durable: every call it holds
 * is claimed in the chat, so a lane lost mid-call (a deploy) is found by the chat's heartbeat, which
 * asks `holding`, and recovered by the attempt rules like any lost call.
 */
import { DurableObject } from "cloudflare:workers";
import type { Progress as ProgressParams } from "@modelcontextprotocol/sdk/types.js";
import { keptProgress, LatestEvery, PROGRESS_INTERVAL_MS, type Progress } from "../../src/jobs/progress";
import type { JobOutcome, LaneCall, LaneOutcome } from "../../src/jobs/messages";
import { ReportQueue } from "../../src/jobs/report-queue";
import { chatName } from "../../src/objects/names";
import { CallMeter, CALLS_PER_OBJECT } from "../../src/tools/call-meter";
import { runCall } from "../../src/jobs/run-call";
import { sleep } from "../../src/util/abort";

/** Tries of a report to the chat before the lane gives the call up to the chat's heartbeat. */
const REPORT_TRIES = 3;

export class LaneDO extends DurableObject<Env> {
  /** What the calls here have waiting for headers, measured (tests hold it to `CALLS_PER_OBJECT`). */
  readonly callMeter = new CallMeter();
  /** Every call held, running or waiting for room; the key is the job id. */
  readonly #held = new Map<string, { call: LaneCall; stop: AbortController }>();
  readonly #waiting: string[] = [];
  #load = 0;
  /** Outcomes on their way to the chat, by chat: those that end together go in one call. */
  readonly #reports = new Map<string, ReportQueue<LaneOutcome>>();

  /** Takes calls; they start at once while the lane has room, the rest in order as calls end. */
  run(calls: LaneCall[]): void {
    for (const call of calls) {
      if (this.#held.has(call.call.job_id)) continue; // a repeated hand-over
      this.#held.set(call.call.job_id, { call, stop: new AbortController() });
      this.#waiting.push(call.call.job_id);
    }
    this.#startWhatFits();
  }

  /** Which of these jobs the lane still holds: the chat's heartbeat recovers the others. */
  holding(jobIds: string[]): string[] {
    return jobIds.filter((id) => this.#held.has(id));
  }

  /** The chat ended the job (cancel, deadline): its call stops and reports nothing. */
  abort(jobId: string): void {
    const held = this.#held.get(jobId);
    if (!held) return;
    held.stop.abort(new DOMException("job stopped", "AbortError"));
    const at = this.#waiting.indexOf(jobId);
    if (at >= 0) {
      this.#waiting.splice(at, 1);
      this.#held.delete(jobId);
    }
  }

  #startWhatFits(): void {
    // Strictly in order: a heavy call at the head waits for room rather than be overtaken forever.
    while (this.#waiting.length > 0) {
      const held = this.#held.get(this.#waiting[0]!)!;
      if (this.#load > 0 && this.#load + held.call.weight > CALLS_PER_OBJECT) return;
      this.#waiting.shift();
      this.#load += held.call.weight;
      this.ctx.waitUntil(this.#runOne(held.call, held.stop).finally(() => this.#ended(held.call)));
    }
  }

  #ended(call: LaneCall): void {
    this.#load -= call.weight;
    this.#held.delete(call.call.job_id);
    this.#startWhatFits();
  }

  async #runOne(lane: LaneCall, stopper: AbortController): Promise<void> {
    const chat = this.env.CHAT.getByName(chatName(lane.tenant, lane.chat_id));
    const { job_id } = lane.call;
    const stop = stopper.signal;
    // The chat answers false once the job is no longer this lease's (it ended meanwhile): the call stops.
    const record = async (next: number, phase: "settled" | "sending") => {
      if (!(await chat.laneAttempt(job_id, lane.lease, next, phase))) stopper.abort(new DOMException("job ended", "AbortError"));
    };
    const progress = new LatestEvery<Progress>(PROGRESS_INTERVAL_MS, (p) => {
      chat.laneProgress(job_id, lane.lease, p).catch(() => {}); // a courtesy: the call goes on without it
    });
    try {
      const outcome = await runCall(lane.call, lane.target, stop, {
        settled: (next) => record(next, "settled"),
        sending: (next) => record(next, "sending"),
        progress: (raw: ProgressParams) => {
          const kept = keptProgress(raw);
          if (kept) progress.offer(kept);
        },
        meter: this.callMeter,
        allowPrivateEgress: this.env.ALLOW_PRIVATE_EGRESS === "true",
      });
      progress.stop();
      if (outcome && !stop.aborted) await this.#report(lane, outcome);
    } catch (e) {
      // A record of an attempt could not reach the chat: the call stops, and the heartbeat recovers it from the row.
      if (!stop.aborted) console.error("a lane's call stopped; its chat's heartbeat will recover it", job_id, (e as Error).message);
    } finally {
      progress.stop();
    }
  }

  /** The outcome, to the chat; after `REPORT_TRIES` failures the call is left to the chat's heartbeat. */
  #report(lane: LaneCall, outcome: JobOutcome): Promise<void> {
    const name = chatName(lane.tenant, lane.chat_id);
    let reports = this.#reports.get(name);
    if (!reports) {
      const chat = this.env.CHAT.getByName(name);
      this.#reports.set(name, (reports = new ReportQueue((outcomes) => this.#deliver(chat, outcomes))));
    }
    return reports.send({ job_id: lane.call.job_id, lease: lane.lease, batch_id: lane.batch_id, outcome });
  }

  async #deliver(chat: ReturnType<Env["CHAT"]["getByName"]>, outcomes: LaneOutcome[]): Promise<void> {
    for (let tried = 1; ; tried++) {
      try {
        await chat.laneOutcomes(outcomes);
        return;
      } catch (e) {
        if (tried >= REPORT_TRIES) throw e;
        await sleep(200 * tried, new AbortController().signal);
      }
    }
  }
}
