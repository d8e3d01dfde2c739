/**
 * The runner every host runs (docs/architecture.md#where-a-call-runs): calls a chat claimed, in a
 * Worker invocation the chat started, a `calls` queue consumer, or a runner object of the chat's. One
 * runner holds at most `CALLS_PER_OBJECT` calls waiting at once (an MCP call counts 2); the rest wait
 * their turn in order. Every retry is recorded in the chat before it leaves, outcomes go back in
 * groups (`ReportQueue`), and a chat that answers that a job is no longer this runner's (cancelled,
 * past its deadline, recovered) stops its call.
 *
 * The runner renews its calls' leases every `RENEW_EVERY_MS`, whatever hosts it: a runner that stops
 * renewing is lost, and the chat recovers its calls by the attempt rules. Each renewal also answers
 * which calls the chat ended meanwhile, so a cancel reaches such a call within one renewal (a runner
 * object also hears it at once). That is best effort, as any cancel of a running call: the remote
 * side may finish anyway, and its late result is discarded.
 */
import type { Progress as ProgressParams } from "@modelcontextprotocol/sdk/types.js";
import { keptProgress, LatestEvery, PROGRESS_INTERVAL_MS, type Progress } from "../jobs/progress";
import type { JobOutcome, RunnerCall, RunnerOutcome } from "../jobs/messages";
import { ReportQueue } from "../jobs/report-queue";
import { runCall } from "../jobs/run-call";
import { chatName } from "../objects/names";
import { CallMeter, CALLS_PER_OBJECT } from "../tools/call-meter";
import { sleep } from "../util/abort";
import { RENEW_EVERY_MS } from "./lease";

/** Tries of a report to the chat before the runner gives the call up to the chat's heartbeat. */
const REPORT_TRIES = 3;

type Chat = ReturnType<Env["CHAT"]["getByName"]>;
/** The next lease renewal: its timer, and what ends the invocation's wait for it. */
type Renewal = { timer: ReturnType<typeof setTimeout>; done: () => void };

/** Keeps the invocation (or object) alive while `work` runs. */
export type KeepAlive = (work: Promise<unknown>) => void;

export class CallRunner {
  /** What the calls here have waiting for headers, measured (tests hold it to `CALLS_PER_OBJECT`). */
  readonly meter = new CallMeter();
  /** Every call held, running or waiting for room; the key is the job id. */
  readonly #held = new Map<string, { call: RunnerCall; stop: AbortController }>();
  readonly #waiting: string[] = [];
  #load = 0;
  /** Outcomes on their way to their chat, by chat: those that end together go in one call. */
  readonly #reports = new Map<string, ReportQueue<RunnerOutcome>>();
  #renewal: Renewal | undefined;

  constructor(
    private readonly env: Env,
    private readonly waitUntil: KeepAlive,
  ) {}

  /** Takes calls; they start at once while there is room, the rest in order as calls end. */
  run(calls: RunnerCall[]): void {
    for (const call of calls) {
      const id = call.call.job_id;
      const held = this.#held.get(id);
      if (held?.call.lease === call.lease) continue; // a repeated hand-over
      // An older claim of the same job: the chat took it back, so that copy can report nothing; it stops.
      if (held) this.abort(id);
      this.#held.set(id, { call, stop: new AbortController() });
      this.#waiting.push(id);
    }
    this.#startWhatFits();
    this.#scheduleRenewal();
  }

  /** Which of these jobs the runner still holds (tests look). */
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
      this.waitUntil(this.#runOne(held.call, held.stop).finally(() => this.#ended(held.call)));
    }
  }

  #ended(call: RunnerCall): void {
    this.#load -= call.weight;
    // A newer claim of the same job may have taken its place meanwhile: that one stays.
    if (this.#held.get(call.call.job_id)?.call === call) this.#held.delete(call.call.job_id);
    this.#startWhatFits();
    if (this.#held.size === 0) this.#stopRenewing();
  }

  async #runOne(held: RunnerCall, stopper: AbortController): Promise<void> {
    const { job_id } = held.call;
    const stop = stopper.signal;
    // Each message to the chat gets a new stub: one from before a restart of the chat (a deploy,
    // which a Worker runner outlives) stays broken. The chat answers false once the job is no
    // longer this lease's (it ended, or went to another runner): the call stops.
    const record = async (next: number, phase: "settled" | "sending") => {
      if (!(await this.#chat(held).runnerAttempt(job_id, held.lease, next, phase)))
        stopper.abort(new DOMException("job ended", "AbortError"));
    };
    const progress = new LatestEvery<Progress>(PROGRESS_INTERVAL_MS, (p) => {
      this.#chat(held)
        .runnerProgress(job_id, held.lease, p)
        .catch(() => {}); // a courtesy: the call goes on without it
    });
    try {
      const outcome = await runCall(held.call, held.target, stop, {
        settled: (next) => record(next, "settled"),
        sending: (next) => record(next, "sending"),
        progress: (raw: ProgressParams) => {
          const kept = keptProgress(raw);
          if (kept) progress.offer(kept);
        },
        meter: this.meter,
        allowPrivateEgress: this.env.ALLOW_PRIVATE_EGRESS === "true",
      });
      progress.stop();
      if (outcome && !stop.aborted) await this.#report(held, outcome);
    } catch (e) {
      // A record of an attempt could not reach the chat: the call stops, and the chat's heartbeat recovers it
      // from the row.
      if (!stop.aborted)
        console.error("a runner's call stopped; its chat's heartbeat will recover it", job_id, (e as Error).message);
    } finally {
      progress.stop();
    }
  }

  #chat(call: RunnerCall): Chat {
    return this.env.CHAT.getByName(chatName(call.tenant, call.chat_id));
  }

  /** The outcome, to the chat; after `REPORT_TRIES` failures the call is left to the chat's heartbeat. */
  #report(held: RunnerCall, outcome: JobOutcome): Promise<void> {
    const name = chatName(held.tenant, held.chat_id);
    let reports = this.#reports.get(name);
    if (!reports) {
      reports = new ReportQueue((outcomes) => this.#deliver(name, outcomes));
      this.#reports.set(name, reports);
    }
    return reports.send({ job_id: held.call.job_id, lease: held.lease, batch_id: held.batch_id, outcome });
  }

  /** Each try through a new stub, so a chat restarted meanwhile still gets the outcomes. */
  async #deliver(name: string, outcomes: RunnerOutcome[]): Promise<void> {
    for (let tried = 1; ; tried++) {
      try {
        await this.env.CHAT.getByName(name).runnerOutcomes(outcomes);
        return;
      } catch (e) {
        if (tried >= REPORT_TRIES) throw e;
        await sleep(200 * tried, new AbortController().signal);
      }
    }
  }

  // ---- lease renewal ----

  #scheduleRenewal(): void {
    if (this.#renewal || this.#held.size === 0) return;
    // The invocation stays alive until the renewals end with the last call (no timer outlives it).
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const renewal = {
      timer: setTimeout(() => void this.#renew().finally(() => this.#renewed(renewal)), RENEW_EVERY_MS),
      done,
    };
    this.#renewal = renewal;
    this.waitUntil(finished);
  }

  /** The next renewal, unless the calls all ended meanwhile (and a later `run` started a renewal of its own). */
  #renewed(renewal: Renewal): void {
    if (this.#renewal !== renewal) return;
    this.#renewal = undefined;
    renewal.done();
    this.#scheduleRenewal();
  }

  #stopRenewing(): void {
    const renewal = this.#renewal;
    if (!renewal) return;
    clearTimeout(renewal.timer);
    this.#renewal = undefined;
    renewal.done();
  }

  /** One renewal per chat; the calls its chat no longer counts as this runner's stop. */
  async #renew(): Promise<void> {
    const byChat = new Map<string, RunnerCall[]>();
    for (const { call } of this.#held.values()) {
      const name = chatName(call.tenant, call.chat_id);
      byChat.set(name, [...(byChat.get(name) ?? []), call]);
    }
    await Promise.all(
      [...byChat.values()].map(async (calls) => {
        try {
          const ended = await this.#chat(calls[0]!).renewLeases(
            calls.map((c) => ({ job_id: c.call.job_id, lease: c.lease })),
          );
          for (const id of ended) this.abort(id);
        } catch (e) {
          // Tried again at the next renewal; a chat that never hears one recovers the calls.
          console.warn("renewing calls' leases failed; tried again", calls[0]!.chat_id, (e as Error).message);
        }
      }),
    );
  }
}
