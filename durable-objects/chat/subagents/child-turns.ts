/**
 * A chat's life as a child (docs/api.md#child-chats, docs/api.md#the-agent-loop): it receives a turn from its
 * parent's subordinate job, runs the agent loop step by step (driven by the
 * `agent` timer, so eviction only repeats the step in progress), and hands the
 * outcome back to the parent job, retrying the hand-back until it lands. When a turn is looked at
 * again is in `./turn-timing`, the rules its calls are admitted under in `./child-admission`.
 */
import type { LlmTarget } from "../../../src/core/agents/llm";
import { isTerminal } from "../../../src/core/jobs/job";
import { loadMcpListings } from "../../../src/core/tools/mcp-listings";
import type { McpListings } from "../../../src/core/tools/mcp";
import type { TenantConfig } from "../../../src/core/config/schema";
import type { JobSpec } from "../../../src/core/jobs/job-spec";
import type { AskAnswer, Caller, JobOutcome, TurnRequest, Usage } from "../../../src/core/jobs/messages";
import { budgetAllows, modelUnanswered, modelUsed } from "./spending";
import type { Dispatcher } from "../jobs/dispatcher";
import type { JobMachine } from "../jobs/job-machine";
import type { ChatStore } from "../storage/chat-store";
import type { JobStore } from "../storage/job-store";
import type { NewJob } from "../storage/job-columns";
import type { Turn, Turns } from "../storage/turns";
import type { TreeReservation } from "../storage/tree-slots";
import { runStep, takeReply, type LoopHost, type StepResult } from "./agent-loop";
import type { ChildIdentity } from "./step-calls";
import { admitStepCalls, callerOf, chatLimits, childIdentity } from "./child-admission";
import { ModelAsks } from "./model-asks";
import { giveBackModelRoom, modelRoom, releaseModelRoom } from "./model-room";
import { beginTurn } from "./turn-start";
import { stopTurn, type StopTurn } from "./turn-stop";
import { AGENT_STEP_SAFETY_MS, idleError, idleLimit, idleRecheckAt, nextStepAt, REPORT_RETRY_MS } from "./turn-timing";
import type { TreeCap } from "./tree-cap";
import type { SpanOutbox } from "../events/span-outbox";
import { traceModelRequest } from "./model-span";

export class ChildTurns implements LoopHost {
  /** The turns being driven in this instance, each with its drive. */
  readonly #driving = new Map<string, Promise<void>>();
  readonly #wakes = new Set<string>();
  #toStart: string[] = [];

  readonly turns: Turns;
  readonly jobs: JobStore;
  /** The turn's model request while a Worker runner makes it. */
  readonly asks: ModelAsks;

  constructor(
    private readonly store: ChatStore,
    private readonly machine: JobMachine,
    private readonly dispatcher: Dispatcher,
    private readonly tree: TreeCap,
    /** The turn's calls were admitted (inside the transaction): those under an approval rule are asked about. */
    private readonly onAdmitted: (jobs: readonly NewJob[], now: number) => void,
    /** Where the `chat` spans of a traced turn's model requests go. */
    readonly spans: SpanOutbox,
  ) {
    this.turns = store.turns;
    this.jobs = store.jobs;
    this.asks = new ModelAsks(store);
  }

  /** Idempotent per parent job: a hand-over delivered twice starts one turn. */
  beginTurn(req: TurnRequest, now: number): "started" | "duplicate" | "expired" {
    return beginTurn(this.store, req, now);
  }

  /** The parent ended the job (cancel, deadline, deletion): stop the turn and everything it started. */
  stopTurn(parent: StopTurn, now: number): void {
    stopTurn(this.store, this.machine, this.asks, parent, now);
  }

  /** An LLM reply or a job state change: the running turn is not idle (docs/api.md#the-agent-loop). */
  progress(now: number): void {
    if (!this.#isChild()) return;
    const turns = this.store.turns.progress(now);
    if (turns.length === 0) return;
    const idleMs = idleLimit(this.store.sql).seconds * 1000;
    for (const turnId of turns) this.store.timers.set("idle", turnId, now + idleMs);
  }

  /**
   * The idle timer fired. Time spent awaiting the turn's own running jobs is
   * not idle; otherwise no progress for the idle limit (the profile's `idle_seconds`, else
   * `limits.subagent_idle_seconds`) ends the job `timeout`, `idle_timeout`.
   */
  async checkIdle(turnId: string, now: number): Promise<void> {
    const turn = this.store.turns.get(turnId);
    if (turn?.state !== "running") return;
    const limit = idleLimit(this.store.sql);
    const idleMs = limit.seconds * 1000;
    const awaited = (turn.awaiting ?? []).flatMap((c) => c.job_ids ?? (c.job_id ? [c.job_id] : []));
    const busy = this.store.jobs.many(awaited).some((j) => !isTerminal(j.state));
    const again = idleRecheckAt(turn, busy, now, idleMs);
    if (again !== undefined) {
      this.store.timers.set("idle", turnId, again);
      return;
    }
    this.store.timers.clear("agent", turnId);
    await this.finish(turn, {
      state: "timeout",
      error: idleError(limit),
      error_type: "idle_timeout",
      attempt: 1,
      usage: turn.usage,
    });
  }

  /** Only a child chat has turns; a top-level chat skips their bookkeeping on every job. */
  #isChild(): boolean {
    return this.store.isChild();
  }

  /** A job ended: a turn waiting on it takes its next step. */
  wake(jobId: string, now: number): void {
    if (!this.#isChild()) return;
    for (const turnId of this.store.turns.awaitingAny([jobId])) {
      this.#wakes.add(turnId);
      this.store.timers.set("agent", turnId, now);
    }
  }

  /** The `agent` timer: drive the turn beside the alarm; if this instance dies mid-step, the timer fires again. */
  onAgentTimer(turnId: string, now: number): void {
    this.store.timers.set("agent", turnId, now + AGENT_STEP_SAFETY_MS);
    this.store.ctx.waitUntil(this.drive(turnId));
  }

  /**
   * Runs steps until the turn waits or ends, starting with `first` (the second half of a step
   * whose model replied); the `agent` timer covers an instance lost meanwhile.
   */
  drive(turnId: string, first?: () => Promise<StepResult>): Promise<void> {
    if (this.#driving.has(turnId)) return Promise.resolve();
    const driving = this.#steps(turnId, first);
    this.#driving.set(turnId, driving);
    return driving;
  }

  async #steps(turnId: string, first?: () => Promise<StepResult>): Promise<void> {
    try {
      let result: StepResult;
      do {
        this.#wakes.delete(turnId);
        result = first ? await first() : await runStep(this, turnId, Date.now());
        first = undefined;
        const started = this.#toStart;
        this.#toStart = [];
        // The jobs are stored with their watchdog: a slow or stuck queue send must not hold up the turn.
        this.store.ctx.waitUntil(this.dispatcher.start(started));
      } while ((result === "again" || this.#wakes.has(turnId)) && this.store.readable());
      if (this.store.readable()) this.#untilNextStep(turnId, result);
    } catch (e) {
      // A step cut short by the chat's deletion is not retried: the chat is going away.
      if (!this.store.readable()) return;
      console.error("agent step failed; retrying", turnId, e);
      this.store.timers.set("agent", turnId, Date.now() + REPORT_RETRY_MS);
    } finally {
      this.#driving.delete(turnId);
      if (this.store.readable()) await this.store.timers.arm();
    }
  }

  /** The `agent` timer as the turn waits: none while it waits on its jobs (their ends wake it). */
  #untilNextStep(turnId: string, result: StepResult): void {
    const ask = result === "asking" ? this.asks.current(turnId) : undefined;
    // Waiting for room under a flow rule is not idle (`nextStepAt`).
    if (result === "room") this.progress(Date.now());
    const at = nextStepAt(result, ask, Date.now());
    if (at === undefined) this.store.timers.clear("agent", turnId);
    else this.store.timers.set("agent", turnId, at);
  }

  /**
   * A runner's answer to the turn's model request (docs/architecture.md#model-requests): the step
   * goes on with it, once a step looking at the ask this instant is done. `stale` when the ask is
   * no longer that runner's (the turn stopped, or asked again).
   */
  async replied(turnId: string, lease: string, answer: AskAnswer): Promise<"taken" | "stale"> {
    for (let driving = this.#driving.get(turnId); driving; driving = this.#driving.get(turnId)) await driving;
    const ask = this.asks.current(turnId);
    if (!this.running(turnId) || !this.asks.take(turnId, lease)) return "stale";
    // Nothing may await between taking the ask and driving the step: a timer's step in between would
    // find no ask and ask the model again. The request's span is built inside the step, before the
    // reply joins the conversation it was asked with, and never stops it.
    await this.drive(turnId, async () => {
      if (ask?.span)
        await traceModelRequest(this, ask, answer).catch((e: Error) =>
          console.warn("a model request's span could not be built; the turn goes on", turnId, e.message),
        );
      return takeReply(this, turnId, answer);
    });
    return "taken";
  }

  /** Sends (or re-sends) a finished turn's outcome to the parent job. */
  async report(turnId: string): Promise<void> {
    const turn = this.store.turns.get(turnId);
    if (!turn?.outcome) return;
    try {
      await this.store.chat(turn.parent_chat_id).completeJob(turn.parent_job_id, turn.lease, turn.outcome);
      this.store.timers.clear("report", turnId);
    } catch (e) {
      console.warn("hand-back to the parent failed; retrying", turnId, (e as Error).message);
      this.store.timers.set("report", turnId, Date.now() + REPORT_RETRY_MS);
    }
    await this.store.timers.arm();
  }

  // ---- LoopHost ----------------------------------------------------------------

  running(turnId: string): boolean {
    return this.store.readable() && this.store.turns.get(turnId)?.state === "running";
  }

  identity(): ChildIdentity {
    return childIdentity(this.store.sql);
  }

  config(): Promise<TenantConfig> {
    return this.store.tenantConfig();
  }

  llm(): Promise<LlmTarget | null> {
    return this.#tenant().llmTarget();
  }

  allowPrivateEgress = () => this.store.env().ALLOW_PRIVATE_EGRESS === "true";
  pendingAsk = (turnId: string) => this.asks.current(turnId);
  ask = (turn: Turn, now: number) => this.asks.send(turn.parent_job_id, now);
  releaseModelRoom = () => releaseModelRoom(this.store);

  mcp(config: TenantConfig): Promise<McpListings> {
    return loadMcpListings(
      this.#tenant(),
      config.mcp_servers.map((s) => s.name),
    );
  }

  transaction<T>(fn: () => T): T {
    return this.store.transaction(fn);
  }

  reserveTree(specs: JobSpec[], now: number, config: TenantConfig): Promise<TreeReservation> {
    return this.tree.reserveTiered(
      { ...this.store.address(), limits: chatLimits(this.store.sql) },
      specs,
      this.#caller(config),
      now,
    );
  }

  releaseTree(tree: TreeReservation): void {
    this.tree.release(tree);
  }

  modelRoom(turn: Turn, config: TenantConfig) {
    return modelRoom(this.store, turn, config);
  }

  // What a model request spends: ./spending.
  modelUsed = (now: number, usage: Usage, step: string): Promise<void> => modelUsed(this.store, now, usage, step);
  modelUnanswered = (step: string): Promise<void> => modelUnanswered(this.store, step);
  budgetAllows = (step: string) => budgetAllows(this.store, step);

  /** A flow object has room: a turn whose model request waited for it asks again now (also if a step is running). */
  flowOffered(now: number): void {
    const turn = this.store.turns.running();
    if (!turn) return;
    this.#wakes.add(turn.parent_job_id);
    this.store.timers.set("agent", turn.parent_job_id, now);
  }

  admitCalls(turn: Turn, specs: JobSpec[], now: number, config: TenantConfig, tree: TreeReservation) {
    const { jobs, started, jobIds, errors } = admitStepCalls(this.store, this.tree, turn, specs, now, config, tree);
    this.#toStart.push(...started);
    this.onAdmitted(jobs, now);
    return { jobIds, errors };
  }

  /** The calling agent inside this child: its own profile and that profile's task rules. */
  #caller(config: TenantConfig): Caller {
    return callerOf(config, this.identity().profile);
  }

  async finish(turn: Turn, outcome: JobOutcome): Promise<void> {
    // A turn stopped meanwhile (its job ended, its chat is being deleted) has no outcome to hand back.
    if (!this.running(turn.parent_job_id)) return;
    const now = Date.now();
    // Ended while its model request was out (idle, past its deadline, no provider at the claim): the runner's
    // reply is stale, its room goes back.
    this.asks.forget();
    giveBackModelRoom(this.store);
    this.store.transaction(() => {
      this.store.turns.update(turn.parent_job_id, { state: "done", outcome }, now);
      this.store.timers.clear("idle", turn.parent_job_id);
      this.store.timers.set("report", turn.parent_job_id, now);
      this.store.schedulePurge(now);
    });
    await this.report(turn.parent_job_id);
  }

  #tenant() {
    return this.store.tenant();
  }
}
