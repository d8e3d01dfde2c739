/**
 * A chat's life as a child (SPEC §5.1–5.2): it receives a turn from its
 * parent's subordinate job, runs the agent loop step by step (driven by the
 * `agent` timer, so eviction only repeats the step in progress), and hands the
 * outcome back to the parent job, retrying the hand-back until it lands.
 */
import type { LlmTarget } from "../../src/agents/llm";
import { isTerminal } from "../../src/jobs/job";
import { orderedRules } from "../../src/agents/permission";
import { profile as profileOf } from "../../src/agents/profiles";
import { loadMcpListings } from "../../src/tools/mcp-listings";
import type { McpListings } from "../../src/tools/mcp";
import type { TenantConfig } from "../../src/config/schema";
import type { JobSpec } from "../../src/jobs/job-spec";
import { narrowestTools } from "../../src/jobs/tool-bound";
import type { Caller, ChatLimits, JobOutcome, TurnRequest } from "../../src/jobs/messages";
import { chatName, tenantName } from "../../src/objects/names";
import { newJobRows, type AdmittedBatch, type InOrderAdmission } from "./admission";
import { runStep, type ChildIdentity, type LoopHost } from "./agent-loop";
import type { JobMachine } from "./job-machine";
import type { JobStore } from "./job-store";
import { readLimits, readMeta, writeMeta } from "./schema";
import type { SubordinatePlan, SubordinateState } from "./subordinates";
import type { Timers } from "./timers";
import type { Turn, Turns } from "./turns";
import type { TreeReservation } from "./tree-slots";
import { transact } from "./sql-cache";

/** If a step's instance dies (an LLM call can take a while), the `agent` timer re-drives it after this. */
export const AGENT_STEP_SAFETY_MS = 150_000;
/** A hand-back the parent did not take is retried after this. */
export const REPORT_RETRY_MS = 5_000;

export interface ChildDeps {
  ctx: DurableObjectState;
  /** Read at each use: the object's bindings (tests swap them to inject faults). */
  env(): Env;
  sql: SqlStorage;
  jobs: JobStore;
  turns: Turns;
  timers: Timers;
  machine: JobMachine;
  /** Writes a batch (inside the caller's transaction); returns the ids to start. */
  insertBatch(batch: AdmittedBatch, plans: Map<number, SubordinatePlan>, now: number): string[];
  subordinateState(): SubordinateState;
  /** Dispatches admitted jobs (queue copy, then the fast path). */
  start(jobIds: string[]): Promise<void>;
  /** A turn ended (done or stopped): retention may start counting. */
  turnEnded(now: number): void;
  /** Slots from the tree's root for the step's admissible subordinates (a child is never the root). */
  reserveTiered(specs: JobSpec[], limits: ChatLimits, caller: Caller, now: number): Promise<ChildTreeSlots>;
  /** Admits a step's calls in call order (sync, inside the step's transaction). */
  admitTiered(specs: JobSpec[], limits: ChatLimits, caller: Caller, tree: ChildTreeSlots, now: number): InOrderAdmission;
  releaseTree(tree: ChildTreeSlots): void;
  /** False once the chat is being deleted (or gone): its turns take no further step. */
  live(): boolean;
}

/** Who asks a child to stop a turn: its parent job, and the child chat's own address. */
export interface StopTurn {
  tenant: string;
  chat_id: string;
  parent_job_id: string;
  parent_chat_id: string;
}

/** Tree-cap slots a child reserved from its root before a step's admission. */
export type ChildTreeSlots = TreeReservation;

export class ChildSide implements LoopHost {
  readonly #driving = new Set<string>();
  readonly #wakes = new Set<string>();
  #toStart: string[] = [];

  constructor(private readonly d: ChildDeps) {}

  get turns() {
    return this.d.turns;
  }
  get jobs() {
    return this.d.jobs;
  }

  /** Idempotent per parent job: a hand-over delivered twice starts one turn. */
  beginTurn(req: TurnRequest, now: number): "started" | "duplicate" | "expired" {
    // A stopped turn leaves its row behind, so a hand-off still in flight when the parent ended the job starts nothing.
    if (this.d.turns.get(req.parent_job_id)) return "duplicate";
    if (now >= req.deadline_at) return "expired";
    transact(this.d.ctx.storage, this.d.sql, () => {
      writeMeta(this.d.sql, "tenant", req.tenant);
      writeMeta(this.d.sql, "chat_id", req.chat_id);
      writeMeta(this.d.sql, "parent_chat_id", req.parent_chat_id);
      writeMeta(this.d.sql, "root_chat_id", req.root_chat_id);
      writeMeta(this.d.sql, "level", String(req.level));
      writeMeta(this.d.sql, "profile", req.profile);
      writeMeta(this.d.sql, "name", req.name);
      writeMeta(this.d.sql, "limits", JSON.stringify(req.limits));
      // A continued child keeps the subset it was started with: a continuation narrows it, never widens it.
      writeMeta(this.d.sql, "tools", JSON.stringify(narrowestTools(JSON.parse(readMeta(this.d.sql, "tools") ?? "null"), req.tools)));
      if (readMeta(this.d.sql, "created_at") === undefined) writeMeta(this.d.sql, "created_at", String(now));
      this.d.turns.begin(req, now);
      const lines = [
        ...(req.forked ? [`Context from the agent that started you:\n${req.forked}\n`] : []),
        req.message,
        ...req.attachments.map((url) => `Attachment: ${url}`),
      ];
      this.d.turns.append(req.parent_job_id, { role: "user", content: lines.join("\n") }, now);
      this.d.timers.set("agent", req.parent_job_id, now);
      this.d.timers.set("idle", req.parent_job_id, now + req.limits.subagent_idle_seconds * 1000);
    });
    return "started";
  }

  /** The parent ended the job (cancel, deadline, deletion): stop the turn and everything it started. */
  stopTurn(parent: StopTurn, now: number): void {
    const turn = this.d.turns.get(parent.parent_job_id);
    if (!turn) {
      // The hand-off has not arrived yet: leave a stopped turn so it never starts, purged like any chat.
      transact(this.d.ctx.storage, this.d.sql, () => {
        if (readMeta(this.d.sql, "tenant") === undefined) writeMeta(this.d.sql, "tenant", parent.tenant);
        if (readMeta(this.d.sql, "chat_id") === undefined) writeMeta(this.d.sql, "chat_id", parent.chat_id);
        this.d.turns.begin({ ...parent, lease: "", deadline_at: now }, now);
        this.d.turns.update(parent.parent_job_id, { state: "stopped" }, now);
        this.d.turnEnded(now);
      });
      return;
    }
    if (turn.state !== "running") return;
    for (const job of this.d.jobs.active()) this.d.machine.cancel(job.job_id, now);
    // Answer every call still awaited, so a continued conversation stays valid for the provider.
    for (const call of turn.awaiting ?? []) {
      this.d.turns.append(parent.parent_job_id, { role: "tool", tool_call_id: call.tool_call_id, content: "Error: the task was stopped before this call finished." }, now);
    }
    this.d.turns.update(parent.parent_job_id, { state: "stopped", awaiting: null }, now);
    this.d.timers.clear("agent", parent.parent_job_id);
    this.d.timers.clear("idle", parent.parent_job_id);
    this.d.turnEnded(now);
  }

  /** An LLM reply or a job state change: the running turn is not idle (SPEC §5.2). */
  progress(now: number): void {
    if (!this.#isChild()) return;
    const turns = this.d.turns.progress(now);
    if (turns.length === 0) return;
    const idleMs = this.#idleMs();
    for (const turnId of turns) this.d.timers.set("idle", turnId, now + idleMs);
  }

  /**
   * The idle timer fired. Time spent awaiting the turn's own running jobs is
   * not idle; otherwise no progress for `subagent_idle_seconds` ends the job `timeout`.
   */
  async checkIdle(turnId: string, now: number): Promise<void> {
    const turn = this.d.turns.get(turnId);
    if (!turn || turn.state !== "running") return;
    const idleMs = this.#idleMs();
    const awaited = (turn.awaiting ?? []).flatMap((c) => c.job_ids ?? (c.job_id ? [c.job_id] : []));
    const busy = this.d.jobs.many(awaited).some((j) => !isTerminal(j.state));
    if (busy || now < turn.progress_at + idleMs) {
      this.d.timers.set("idle", turnId, Math.max(now, turn.progress_at) + idleMs);
      return;
    }
    const error = `No progress for ${idleMs / 1000} s (limits.subagent_idle_seconds); the subagent was stopped.`;
    this.d.timers.clear("agent", turnId);
    await this.finish(turn, { state: "timeout", error, attempt: 1, usage: turn.usage });
  }

  /** Only a child chat has turns; a top-level chat skips their bookkeeping on every job. */
  #isChild(): boolean {
    return readMeta(this.d.sql, "parent_chat_id") !== undefined;
  }

  #idleMs(): number {
    const limits: Partial<ChatLimits> = readLimits(this.d.sql) ?? {};
    return (limits.subagent_idle_seconds ?? 300) * 1000;
  }

  /** A job ended: a turn waiting on it takes its next step. */
  wake(jobId: string, now: number): void {
    if (!this.#isChild()) return;
    for (const turnId of this.d.turns.awaitingAny([jobId])) {
      this.#wakes.add(turnId);
      this.d.timers.set("agent", turnId, now);
    }
  }

  /** Runs steps until the turn waits or ends; the `agent` timer covers an instance lost meanwhile. */
  async drive(turnId: string): Promise<void> {
    if (this.#driving.has(turnId)) return;
    this.#driving.add(turnId);
    try {
      let result;
      do {
        this.#wakes.delete(turnId);
        result = await runStep(this, turnId, Date.now());
        const started = this.#toStart;
        this.#toStart = [];
        // The jobs are stored with their watchdog: a slow or stuck queue send must not hold up the turn.
        this.d.ctx.waitUntil(this.d.start(started));
      } while ((result === "again" || this.#wakes.has(turnId)) && this.d.live());
      if (this.d.live()) this.d.timers.clear("agent", turnId);
    } catch (e) {
      // A step cut short by the chat's deletion is not retried: the chat is going away.
      if (!this.d.live()) return;
      console.error("agent step failed; retrying", turnId, e);
      this.d.timers.set("agent", turnId, Date.now() + REPORT_RETRY_MS);
    } finally {
      this.#driving.delete(turnId);
      if (this.d.live()) await this.d.timers.arm();
    }
  }

  /** Sends (or re-sends) a finished turn's outcome to the parent job. */
  async report(turnId: string): Promise<void> {
    const turn = this.d.turns.get(turnId);
    if (!turn?.outcome) return;
    const tenant = readMeta(this.d.sql, "tenant")!;
    try {
      await this.d.env().CHAT.getByName(chatName(tenant, turn.parent_chat_id)).completeJob(turn.parent_job_id, turn.lease, turn.outcome);
      this.d.timers.clear("report", turnId);
    } catch (e) {
      console.warn("hand-back to the parent failed; retrying", turnId, (e as Error).message);
      this.d.timers.set("report", turnId, Date.now() + REPORT_RETRY_MS);
    }
    await this.d.timers.arm();
  }

  // ---- LoopHost ----------------------------------------------------------------

  running(turnId: string): boolean {
    return this.d.live() && this.d.turns.get(turnId)?.state === "running";
  }

  identity(): ChildIdentity {
    const tools = JSON.parse(readMeta(this.d.sql, "tools") ?? "null") as string[] | null;
    return {
      level: Number(readMeta(this.d.sql, "level") ?? 0),
      profile: readMeta(this.d.sql, "profile") ?? "default",
      ...(tools ? { tools } : {}),
    };
  }

  async config(): Promise<TenantConfig> {
    // The RPC type mapping cannot carry the schema's open JSON fields; the value is plain JSON.
    return ((await this.#tenant().getConfig()) as { config: TenantConfig }).config;
  }

  llm(): Promise<LlmTarget | null> {
    return this.#tenant().llmTarget();
  }

  allowPrivateEgress(): boolean {
    return this.d.env().ALLOW_PRIVATE_EGRESS === "true";
  }

  mcp(config: TenantConfig): Promise<McpListings> {
    return loadMcpListings(this.#tenant(), config.mcp_servers.map((s) => s.name));
  }

  transaction<T>(fn: () => T): T {
    return transact(this.d.ctx.storage, this.d.sql, fn);
  }

  reserveTree(specs: JobSpec[], now: number, config: TenantConfig): Promise<ChildTreeSlots> {
    return this.d.reserveTiered(specs, this.#limits(), this.#caller(config), now);
  }

  releaseTree(tree: ChildTreeSlots): void {
    this.d.releaseTree(tree);
  }

  admitCalls(turn: Turn, specs: JobSpec[], now: number, config: TenantConfig, tree: ChildTreeSlots) {
    const { admitted, plans, refusals, queued } = this.d.admitTiered(specs, this.#limits(), this.#caller(config), tree, now);
    const chat_id = readMeta(this.d.sql, "chat_id")!;
    const batch = newJobRows(admitted, now, { chat_id, tiered: true, deadlineCap: turn.deadline_at, plans, queued });
    this.#toStart.push(...this.d.insertBatch(batch, plans, now));
    const errors = new Map([...refusals].map(([index, e]) => [index, e.message]));
    return { jobIds: new Map(batch.jobs.map((j) => [j.idx, j.job_id])), errors };
  }

  #limits(): ChatLimits {
    return readLimits(this.d.sql)!;
  }

  /** The calling agent inside this child: its own profile and that profile's task rules. */
  #caller(config: TenantConfig): Caller {
    const agent = this.identity().profile;
    return { agent, task_rules: orderedRules(profileOf(config, agent).permission?.task) };
  }

  async finish(turn: Turn, outcome: JobOutcome): Promise<void> {
    // A turn stopped meanwhile (its job ended, its chat is being deleted) has no outcome to hand back.
    if (!this.running(turn.parent_job_id)) return;
    const now = Date.now();
    transact(this.d.ctx.storage, this.d.sql, () => {
      this.d.turns.update(turn.parent_job_id, { state: "done", outcome }, now);
      this.d.timers.clear("idle", turn.parent_job_id);
      this.d.timers.set("report", turn.parent_job_id, now);
      this.d.turnEnded(now);
    });
    await this.report(turn.parent_job_id);
  }

  #tenant() {
    return this.d.env().TENANT.getByName(tenantName(readMeta(this.d.sql, "tenant")!));
  }
}
