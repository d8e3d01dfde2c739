/**
 * ChatDO: one per tenant + chat (`chat/<tenant>/<chat_id>`). It owns the
 * chat's jobs and is the only writer of their state, so every rule is decided
 * in one single-threaded place.
 *
 * This file is the RPC surface and the alarm. The rules live elsewhere:
 * admission in `./admission`, transitions in `./job-machine`, retention in
 * `./retention`, payloads in `src/jobs/`; storage in `./job-store`, `./timers`.
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, refusal } from "../../src/http/errors";
import { extrasText } from "../../src/jobs/extras";
import { jobRecord, type JobRecord, type JobRow } from "../../src/jobs/job";
import type {
  BatchAnswer,
  BatchRequest,
  ChatInfo,
  ChatLimits,
  CompleteResult,
  JobOutcome,
  ToolCallEntry,
  ToolCallsAnswer,
  ToolCallsReply,
  ToolCallsRequest,
  TurnRequest,
  Delivery,
} from "../../src/jobs/messages";
import { resultsPayload, startedPayload, type Snapshot } from "../../src/jobs/payloads";
import { chatName, tenantName } from "../../src/objects/names";
import type { SubordinateJobSpec } from "../../src/jobs/job-spec";
import { withinToolBound } from "../../src/jobs/tool-bound";
import { admissionProblem, newJobRows, withJobIds, type AdmittedBatch } from "./admission";
import { admittedCall, deliveredJobIds, reportedJobIds, toolCallResult, toolCallsStatus } from "../../src/jobs/tool-call-results";
import { Children, NEW_CHAT_STATE, planSubordinates, type SubordinatePlan, type SubordinateState } from "./subordinates";
import { Idempotency, type ReplayShape, type StoredToolCalls } from "./idempotency";
import { JobMachine } from "./job-machine";
import { JobStore } from "./job-store";
import { LogStore } from "./log-rows";
import { nextPurgeAt, purgeExpired } from "./retention";
import { ensureSchema, hasSchema, readLimits, readMeta, writeMeta } from "./schema";
import { forgetCached, transact } from "./sql-cache";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../src/util/limited";
import { Timers, type Timer } from "./timers";
import { Waiters } from "./waiters";
import { Dispatcher } from "./dispatcher";
import { EXEC_HEARTBEAT_MS, Executor, type RunAnswer } from "./executor";
import { JobProgress } from "./job-progress";
import type { RunTarget } from "../../src/tools/executors";
import { TreeSlots, treeLimit } from "./tree-slots";
import { TreeCap } from "./tree-cap";
import { admitBatch } from "./subagent-cap";
import { AGENT_STEP_SAFETY_MS, ChildSide } from "./child-side";
import { EVENT_TTL_MS, Events } from "./events";
import { Announcer } from "./announcer";
import { Notifications } from "./notifications";
import { ChatStream } from "./chat-stream";
import { answerClose, parseCursor } from "../shared/live-stream";
import { DELIVERY_SAFETY_MS, Outbox, type Redelivery } from "./outbox";
import type { DeliveryEntry, DeliveryStatus } from "../../src/webhooks/deliveries";
import { Turns } from "./turns";
import { beingDeleted, Deletion, type DeletedBy, type DeletionAnswer } from "./deletion";
import { chatLimits } from "../../src/config/chat-limits";
import { defaultConfig } from "../../src/config/schema";
import type { StopTurn } from "./child-side";
import type { Usage } from "../../src/jobs/messages";


/** A pending job not claimed this long after dispatch is sent again (lost or delayed message). */
export const DISPATCH_WATCHDOG_MS = 15_000;

/** A new chat's entry in the tenant's index is written beside its first answer, and retried this often until it lands. */
const REGISTER_RETRY_MS = 10_000;

/** While subordinates are queued, the queue is looked at least this often. */
const QUEUE_SAFETY_MS = 30_000;

/** A timer whose handler threw runs again this much later (production drops an alarm after 6 failed retries). */
const FAILED_TIMER_RETRY_MS = 10_000;


export class ChatDO extends DurableObject<Env> {
  readonly #sql = this.ctx.storage.sql;
  readonly #jobs = new JobStore(this.#sql);
  readonly #log = new LogStore(this.#sql);
  readonly #timers = new Timers(this.#sql, this.ctx.storage);
  readonly #idempotency = new Idempotency(this.#sql);
  readonly #children = new Children(this.#sql);
  readonly #treeSlots = new TreeSlots(this.#sql);
  readonly #tree = new TreeCap({
    ctx: this.ctx,
    env: () => this.env,
    sql: this.#sql,
    jobs: this.#jobs,
    slots: this.#treeSlots,
    subordinateState: () => this.#subordinateState(),
  });
  readonly #waiters = new Waiters();
  /** This chat's entry in the tenant's index while it is being written (see `#commit`). */
  #registering: Promise<unknown> = Promise.resolve();
  /** Hand-overs from the parent waiting on its answer: a deletion waits for them (see `beginTurn`). */
  readonly #handovers = new Set<Promise<unknown>>();
  readonly #dispatcher = new Dispatcher({
    ctx: this.ctx,
    env: () => this.env,
    sql: this.#sql,
    jobs: this.#jobs,
    claimWait: (jobId) => {
      this.#machine.claim(jobId, 1, Date.now());
      return this.#timers.arm();
    },
    stopCall: (jobId) => this.#executor.abort(jobId),
  });
  readonly #turns = new Turns(this.#sql);
  readonly #events = new Events(this.#sql);
  readonly #notifications = new Notifications(this.#sql);
  readonly #outbox = new Outbox({
    ctx: this.ctx,
    events: this.#events,
    notifications: this.#notifications,
    timers: this.#timers,
    webhook: () => this.#tenant().webhookTarget(),
    telegram: () => this.#tenant().telegramTarget(),
    allowPrivateEgress: () => this.env.ALLOW_PRIVATE_EGRESS === "true",
    disableWebhook: (version) => this.#tenant().disableWebhook(version),
    ranDry: (now) => this.#schedulePurge(now),
    delivered: (event, now) => {
      // A delivered batch.finished carried the results: it collects them (SPEC §3.3).
      if (event.type === "batch.finished" && event.batch_id) this.#jobs.markCollected(this.#jobs.byBatch(event.batch_id), now);
    },
  });
  readonly #stream = new ChatStream({ ctx: this.ctx, sql: this.#sql, events: this.#events, tenant: () => this.#tenant() });
  readonly #announce = new Announcer({
    events: this.#events,
    stream: this.#stream,
    notifications: this.#notifications,
    jobs: this.#jobs,
    outbox: this.#outbox,
    maxResultChars: () => this.#limits().max_result_chars,
  });
  readonly #machine = new JobMachine(this.#jobs, this.#log, this.#timers, this.#waiters, {
    // A chat being deleted deletes its child chats itself: a stop sent to one already wiped would give it storage again.
    stopWork: (job) => (this.#deletion.pending() ? this.#executor.abort(job.job_id) : this.ctx.waitUntil(this.#dispatcher.stopWork(job))),
    claimed: (job, now) => {
      this.#announce.jobStarted(job, now);
      this.#child.progress(now);
    },
    ended: (job, now) => this.#onJobEnded(job, now),
  });
  readonly #executor = new Executor({
    ctx: this.ctx,
    env: () => this.env,
    jobs: this.#jobs,
    machine: () => this.#machine,
    timers: this.#timers,
    arm: () => this.#timers.arm(),
    address: () => this.#dispatcher.address(),
    maxStoredBytes: () => this.#limits().max_stored_result_bytes,
    progress: (job) => this.#progress.track(job),
  });
  readonly #progress = new JobProgress({ jobs: this.#jobs, announce: (job, p, now) => this.#announce.jobProgress(job, p, now) });
  readonly #child = new ChildSide({
    ctx: this.ctx,
    env: () => this.env,
    sql: this.#sql,
    jobs: this.#jobs,
    turns: this.#turns,
    timers: this.#timers,
    machine: this.#machine,
    insertBatch: (batch, plans, now) => this.#insertBatch(batch, plans, now),
    subordinateState: () => this.#subordinateState(),
    start: (jobIds) => this.#dispatcher.start(jobIds),
    turnEnded: (now) => this.#schedulePurge(now),
    reserveTiered: (specs, limits, caller, now) => this.#tree.reserveTiered({ ...this.#dispatcher.address(), limits }, specs, caller, now),
    admitTiered: (specs, limits, caller, tree, now) => this.#tree.admitTiered(this.#dispatcher.address().chat_id, specs, limits, caller, tree, now),
    releaseTree: (tree) => this.#tree.release(tree),
    live: () => this.#readable(),
  });
  readonly #deletion = new Deletion({
    ctx: this.ctx,
    env: () => this.env,
    sql: this.#sql,
    jobs: this.#jobs,
    turns: this.#turns,
    timers: this.#timers,
    machine: this.#machine,
    children: this.#children,
    address: () => this.#dispatcher.address(),
    registering: () => this.#registering,
    wipe: () => this.#wipe(),
  });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // An instance starts on the current schema (a deploy may have brought a new one). Every duty
    // lives in `timers`; make sure the one alarm points at the earliest, whatever interrupted the
    // last instance between a write and its re-arm.
    ctx.blockConcurrencyWhile(async () => {
      if (!hasSchema(this.#sql)) return;
      ensureSchema(this.#sql);
      const due = this.#timers.next();
      const alarm = await ctx.storage.getAlarm();
      if (due !== undefined && (alarm === null || alarm > due)) await ctx.storage.setAlarm(due);
    });
  }

  // ---- the `parallel` route --------------------------------------------------

  async startBatch(req: BatchRequest): Promise<BatchAnswer> {
    try {
      return await this.#startBatch(req);
    } catch (e) {
      if (e instanceof ApiError) return refusal(e);
      throw e;
    }
  }

  async #startBatch(req: BatchRequest): Promise<BatchAnswer> {
    const { command } = req;
    const now = Date.now();
    if (this.#deletion.pending()) throw beingDeleted(req.chat_id);
    const exists = hasSchema(this.#sql);

    if (req.idempotency && exists) {
      const replay = this.#idempotency.find(req.route, req.idempotency);
      if (replay) return this.#respond(replay.job_ids, replay.shape, req.limits);
    }

    this.#requireKnown(command.job_ids, exists);
    if (command.action === "cancel") {
      for (const id of command.job_ids) this.#machine.cancel(id, now);
      await this.#timers.arm();
      return this.#respond(command.job_ids, { wait: false, wait_seconds: 0, started_only: false, collect: true }, req.limits);
    }

    const shape: ReplayShape = {
      wait: command.wait,
      wait_seconds: command.wait_seconds,
      started_only: !command.wait && command.job_ids.length === 0,
      collect: true,
    };
    if (command.jobs.length === 0) return this.#respond(command.job_ids, shape, req.limits);

    // A child reserves its tree's slots from the root first: the only await before admission.
    const jobs = withJobIds(withinToolBound(command.jobs, this.#toolBound()));
    const subordinates = jobs.filter((j): j is SubordinateJobSpec => j.kind === "subordinate");
    const tree = await this.#tree.reserve(req, subordinates, now);
    try {
      // A deletion may have begun during that await: nothing joins a chat about to be wiped.
      if (this.#deletion.pending()) throw beingDeleted(req.chat_id);
      // A request with the same key may have been admitted during that await.
      const replay = req.idempotency && hasSchema(this.#sql) ? this.#idempotency.find(req.route, req.idempotency) : undefined;
      if (replay) {
        this.#tree.release(tree);
        return this.#respond(replay.job_ids, replay.shape, req.limits);
      }
      // From here to the end of the transaction nothing awaits: the cap checks and the inserts are one step.
      // A refused batch must leave a new chat without storage, so the checks read nothing that isn't there.
      const live = hasSchema(this.#sql);
      const problem = admissionProblem(command.jobs.length, live ? this.#jobs.activeCount() : 0, req.limits);
      if (problem) throw problem;
      const state = live ? this.#subordinateState() : NEW_CHAT_STATE(req.chat_id);
      const plans = planSubordinates(subordinates, state, req.limits, req.caller);
      const ids = subordinates.map((j) => j.job_id!);
      const queued = admitBatch(ids, this.#tree.capState(state, req.limits, tree, now));
      const batch = newJobRows(jobs, now, { chat_id: req.chat_id, tiered: false, plans, queued });
      const jobIds = batch.jobs.map((j) => j.job_id);
      await this.#commit(req, batch, plans, now, () => {
        this.#tree.settle(tree, ids.filter((id) => !queued.has(id)));
        if (!req.idempotency) return;
        this.#idempotency.record(req.route, req.idempotency, { job_ids: [...command.job_ids, ...jobIds], shape }, now);
        this.#schedulePurge(now);
      });
      return this.#respond([...command.job_ids, ...jobIds], shape, req.limits);
    } catch (e) {
      this.#tree.release(tree);
      throw e;
    }
  }

  // ---- the per-tree subagent cap (SPEC §5.3): the root's side ---------------------

  /** Called by the tree's descendants before their admission. */
  async reserveTreeSlots(req: { job_ids: string[]; limit: number; expires_at: number }): Promise<{ slots: string[]; holders: string[] }> {
    // A root that is gone, or going, grants nothing (and a late ask must not give it storage again).
    if (!this.#readable()) return { slots: [], holders: [] };
    return this.#treeSlots.grant(req.job_ids, req.limit, req.expires_at, Date.now());
  }

  async releaseTreeSlots(slots: string[]): Promise<void> {
    if (!this.#readable()) return;
    this.#treeSlots.release(slots);
    this.#queueMayMove(Date.now());
    await this.#timers.arm();
  }

  /**
   * Stores an admitted batch in one transaction (plus `extra` writes), arms the
   * alarm in the same write batch, then dispatches what is not held back.
   */
  async #commit(
    target: { tenant: string; chat_id: string; limits: ChatLimits; delivery: Delivery },
    batch: AdmittedBatch,
    plans: Map<number, SubordinatePlan>,
    now: number,
    extra: () => void = () => {},
  ): Promise<void> {
    ensureSchema(this.#sql);
    const { isNewChat, toStart } = transact(this.ctx.storage, this.#sql, () => {
      const created = readMeta(this.#sql, "chat_id") === undefined;
      writeMeta(this.#sql, "tenant", target.tenant);
      writeMeta(this.#sql, "chat_id", target.chat_id);
      writeMeta(this.#sql, "limits", JSON.stringify(target.limits));
      if (created) {
        writeMeta(this.#sql, "created_at", String(now));
        this.#announce.chatCreated(target.chat_id, 0, now);
        // Cleared once the tenant's index has the chat; until then the alarm retries it.
        this.#timers.set("register", "", now + REGISTER_RETRY_MS);
      }
      this.#events.addBatch(batch.batch_id, target.delivery.callback_url, target.delivery.notify, now);
      const ids = this.#insertBatch(batch, plans, now);
      extra();
      return { isNewChat: created, toStart: ids };
    });
    // Issued before the first await, so it commits with the rows: a reset during the awaits below
    // cannot leave stored jobs without the alarm that re-dispatches and times them out.
    const armed = this.#timers.arm();
    // The jobs are stored and the watchdog is armed: they start beside the answer.
    this.ctx.waitUntil(this.#dispatcher.start(toStart));
    // Beside the answer too (the tenant's index is a listing, not the chat's own state); a deletion
    // waits for it, so the index never keeps a deleted chat.
    if (isNewChat) this.ctx.waitUntil((this.#registering = this.#registerChat(target.tenant, target.chat_id, now)));
    await armed;
  }

  // ---- the `tool-calls` route: one assistant message's calls, tiered -------------

  async runToolCalls(req: ToolCallsRequest): Promise<ToolCallsReply> {
    try {
      return { ok: true, answer: await this.#runToolCalls(req) };
    } catch (e) {
      if (e instanceof ApiError) return refusal(e);
      throw e;
    }
  }

  async #runToolCalls(req: ToolCallsRequest): Promise<ToolCallsAnswer> {
    const now = Date.now();
    if (this.#deletion.pending()) throw beingDeleted(req.chat_id);
    if (req.idempotency && hasSchema(this.#sql)) {
      // A retried request gets the same jobs back: nothing runs again.
      const replay = this.#idempotency.find("tool-calls", req.idempotency)?.tool_calls;
      if (replay) return this.#toolCallsAnswer(replay, req.wait_seconds, req.limits, false);
    }
    const bound = this.#toolBound();
    const entries = req.entries.map((e) => this.#withinBound(this.#withKnownJobs(e), bound));
    const specs = withJobIds(entries.flatMap((e) => (e.spec ? [e.spec] : (e.parallel?.specs ?? []))));
    const tree = await this.#tree.reserveTiered(req, specs, req.caller, now);
    if (this.#deletion.pending()) {
      this.#tree.release(tree); // the deletion began during that await
      throw beingDeleted(req.chat_id);
    }
    const { admitted, plans, refusals, queued } = this.#tree.admitTiered(req.chat_id, specs, req.limits, req.caller, tree, now);
    const batch = newJobRows(admitted, now, { chat_id: req.chat_id, tiered: true, plans, queued });
    const jobIds = new Map(batch.jobs.map((j) => [j.idx, j.job_id]));
    const stored: StoredToolCalls = { batch_id: admitted.length ? batch.batch_id : "", calls: entries.map((e) => admittedCall(e, refusals, jobIds)) };
    if (admitted.length) {
      await this.#commit(req, batch, plans, now, () => {
        if (!req.idempotency) return;
        const shape = { wait: true, wait_seconds: req.wait_seconds, started_only: false, collect: false };
        this.#idempotency.record("tool-calls", req.idempotency, { job_ids: batch.jobs.map((j) => j.job_id), shape, tool_calls: stored }, now);
        this.#schedulePurge(now);
      });
    }
    const cancels = stored.calls.flatMap((c) => (c.parallel?.cancel ? c.parallel.job_ids : []));
    if (cancels.length) {
      for (const id of cancels) this.#machine.cancel(id, now);
      await this.#timers.arm();
    }
    return this.#toolCallsAnswer(stored, req.wait_seconds, req.limits, true);
  }

  /** The `spawn_task` `tools` subset this chat was started with, if any. */
  #toolBound(): string[] | null {
    return hasSchema(this.#sql) ? (JSON.parse(readMeta(this.#sql, "tools") ?? "null") as string[] | null) : null;
  }

  /** A call outside the chat's tools is its own error entry; a `parallel` call with one is refused whole. */
  #withinBound(entry: ToolCallEntry, bound: string[] | null): ToolCallEntry {
    try {
      if (entry.spec) return { ...entry, spec: withinToolBound([entry.spec], bound)[0] };
      if (entry.parallel) return { ...entry, parallel: { ...entry.parallel, specs: withinToolBound(entry.parallel.specs, bound) } };
      return entry;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return { index: entry.index, tool_call_id: entry.tool_call_id, name: entry.name, error: { code: e.code, message: e.message, ...e.details } };
    }
  }

  /** A `parallel` call naming jobs this chat does not have is refused whole, as on the `parallel` route. */
  #withKnownJobs(entry: ToolCallEntry): ToolCallEntry {
    if (!entry.parallel?.job_ids.length) return entry;
    try {
      this.#requireKnown(entry.parallel.job_ids, hasSchema(this.#sql));
      return entry;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return { index: entry.index, tool_call_id: entry.tool_call_id, name: entry.name, error: { code: e.code, message: e.message, ...e.details } };
    }
  }

  /** Waits (≤ waitSeconds) for the calls' awaited jobs, then answers them in call order. */
  async #toolCallsAnswer(stored: StoredToolCalls, waitSeconds: number, limits: ChatLimits, collect: boolean): Promise<ToolCallsAnswer> {
    const awaited = deliveredJobIds(stored.calls);
    const done = awaited.length === 0 || (await this.#waiters.until(() => this.#jobs.allEnded(awaited), waitSeconds * 1000));
    const now = Date.now();
    const rows = new Map(this.#jobs.many(reportedJobIds(stored.calls)).map((r) => [r.job_id, r]));
    const results = stored.calls.map((call) => toolCallResult(call, rows, { now, maxResultChars: limits.max_result_chars }));
    if (collect && awaited.length) this.#jobs.markCollected(awaited.flatMap((id) => rows.get(id) ?? []), now);
    return { status: toolCallsStatus(results, !done), batch_id: stored.batch_id || null, results };
  }

  /** Writes a batch's jobs, log rows, children and timers (inside the caller's transaction); returns the ids to start. */
  #insertBatch(batch: AdmittedBatch, plans: Map<number, SubordinatePlan>, now: number): string[] {
    const start: string[] = [];
    let deadline = Infinity;
    for (const job of batch.jobs) {
      this.#jobs.insert(job);
      this.#log.add(job.log_id, job, now);
      if (job.held || job.queued) continue; // its deadline starts when it is released
      deadline = Math.min(deadline, job.deadline_at);
      start.push(job.job_id);
    }
    if (start.length) {
      this.#timers.setEarliest("deadline", "", deadline);
      this.#timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
    }
    for (const [index, plan] of plans) {
      const tool = batch.jobs.find((j) => j.idx === index)!.tool_name;
      this.#children.upsert({ context_id: plan.context_id, tool, profile: plan.profile, name: plan.name }, now);
    }
    // A batch of side-effecting calls only has no concurrent tier: its first call goes at once.
    const first = start.length === 0 ? this.#releaseNext(batch.batch_id, now) : undefined;
    return first ? [first] : start;
  }

  /** Releases the next held job of a batch once its released jobs are all terminal; its deadline starts now. */
  #releaseNext(batchId: string, now: number): string | undefined {
    const next = this.#jobs.nextHeld(batchId);
    if (!next) return undefined;
    this.#jobs.release(next.job_id, this.#armStarted(next, now));
    return next.job_id;
  }

  /** A held or queued job starts now: its deadline (never past the running turn's) and the dispatch watchdog. */
  #armStarted(job: JobRow, now: number): number {
    const deadline = Math.min(now + job.timeout_seconds * 1000, this.#turns.running()?.deadline_at ?? Infinity);
    this.#timers.setEarliest("deadline", "", deadline);
    this.#timers.setEarliest("dispatch", "", now + DISPATCH_WATCHDOG_MS);
    return deadline;
  }

  /**
   * Starts queued subordinates in order as slots free (the `queue` timer, so
   * one run at a time). At the top-level chat a job the tree has no slot for
   * waits for the next release; a child's ends `error` with the tree's refusal
   * instead (see `CapState.queueOnTree`).
   */
  async #startQueued(now: number): Promise<void> {
    const limits = this.#limits();
    const free = limits.max_parallel_subagents - this.#subordinateState().runningJobIds.length;
    const next = this.#jobs.queued().slice(0, Math.max(0, free));
    if (next.length === 0) return;
    const tree = await this.#tree.reserve({ ...this.#dispatcher.address(), limits }, next, now);
    const stillQueued = new Set(this.#jobs.queued().map((j) => j.job_id)); // a cancel may have come in meanwhile
    const allowance = this.#tree.allowance(tree, limits, now);
    const starting: JobRow[] = [];
    const refused: JobRow[] = [];
    for (const job of next) {
      if (!stillQueued.has(job.job_id)) continue;
      if (allowance.grants(job.job_id, starting.length)) starting.push(job);
      else if (tree.remote) refused.push(job);
    }
    transact(this.ctx.storage, this.#sql, () => {
      for (const job of starting) this.#jobs.unqueue(job.job_id, this.#armStarted(job, now));
      this.#tree.settle(tree, starting.map((j) => j.job_id));
      const error = treeLimit(allowance.holders, 1, limits.max_subagents_per_tree).message;
      for (const job of refused) this.#machine.finish(job, { state: "error", error }, now);
      // Releases move the queue (ref ""); this covers a tree slot that expired instead of being released.
      if (this.#jobs.queued().length) this.#timers.set("queue", "safety", now + QUEUE_SAFETY_MS);
    });
    await this.#dispatcher.start(starting.map((j) => j.job_id));
  }

  #subordinateState(): SubordinateState {
    const active = this.#jobs.activeSubordinates();
    const running = active.filter((j) => j.queue_seq === null);
    return {
      level: Number(readMeta(this.#sql, "level") ?? 0),
      children: this.#children,
      busyContexts: new Set(active.flatMap((j) => (j.context_id ? [j.context_id] : []))),
      runningJobIds: running.map((j) => j.job_id),
      queued: active.length - running.length,
      forkContext: () => this.#turns.forkContext(),
      rootChatId: this.#tree.rootOf(readMeta(this.#sql, "chat_id")!),
    };
  }

  /** Unknown ids are reported all together, before anything changes (SPEC §3.2). */
  #requireKnown(ids: string[], exists: boolean): void {
    const known = new Set(exists ? this.#jobs.many(ids).map((j) => j.job_id) : []);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new ApiError(400, "unknown_job_ids", `Unknown parallel job id(s): ${unknown.join(", ")}`, {
        job_ids: unknown,
      });
    }
  }

  /** Waits (if asked) and builds the payload; a response that carries a final snapshot collects it. */
  async #respond(ids: string[], shape: ReplayShape, limits: ChatLimits): Promise<BatchAnswer> {
    let waitTimedOut = false;
    if (shape.wait) {
      const done = () => this.#jobs.allEnded(ids);
      waitTimedOut = !(await this.#waiters.until(done, shape.wait_seconds * 1000));
    }
    const rows = this.#jobs.many(ids);
    const now = Date.now();
    const view = { now, maxResultChars: limits.max_result_chars };
    // Always the started shape, even if a job already finished: it carries no result, so nothing is collected.
    if (shape.started_only) return { ok: true, payload: startedPayload(rows, view) };
    const payload = resultsPayload(rows, { ...view, waitTimedOut });
    if (shape.collect) this.#jobs.markCollected(rows, now);
    return { ok: true, payload };
  }

  /** After any job ends: its events, the next held or queued jobs, a turn waiting on it, retention. */
  #onJobEnded(job: JobRow, now: number): void {
    this.#announce.jobEnded(job, now);
    if (job.tree_slot) {
      const { tenant, chat_id } = this.#dispatcher.address();
      this.#tree.jobEnded(job.tree_slot, tenant, chat_id);
    }
    if (job.kind === "subordinate" && job.queue_seq === null) this.#queueMayMove(now);
    const released = job.held === 0 ? this.#releaseNext(job.batch_id, now) : undefined;
    if (released) this.ctx.waitUntil(this.#dispatcher.start([released]));
    this.#child.progress(now);
    this.#child.wake(job.job_id, now);
    // The job that just ended, and the events it announced, expire from now on: the purge timer only
    // moves closer for them (what came earlier is covered by the time it already has, or at worst
    // by this one, one job duration late).
    this.#timers.setEarliest("purge", "", now + Math.min(this.#retentionMs(), EVENT_TTL_MS));
  }

  /** A subagent slot freed (here, or in the tree at the root): the queue's next jobs may start. */
  #queueMayMove(now: number): void {
    if (this.#jobs.queued().length) this.#timers.set("queue", "", now);
  }

  // ---- a child's side: turns handed over by the parent's subordinate jobs ----

  async beginTurn(req: TurnRequest): Promise<"started" | "duplicate" | "expired"> {
    const handover = this.#handOver(req);
    this.#handovers.add(handover);
    try {
      return await handover;
    } finally {
      this.#handovers.delete(handover);
    }
  }

  async #handOver(req: TurnRequest): Promise<"started" | "duplicate" | "expired"> {
    // A chat being deleted starts nothing; its parent's job ends "child chat deleted".
    if (this.#deletion.pending()) return "duplicate";
    // A hand-over still in flight when its parent ended the job (cancelled it, or was deleted and
    // already asked this chat to go) must not give a deleted subtree storage and a running loop
    // again: only the claim that holds the job may start a turn.
    const parent = this.env.CHAT.getByName(chatName(req.tenant, req.parent_chat_id));
    if (!(await parent.holdsJob(req.parent_job_id, req.lease))) return "duplicate";
    if (this.#deletion.pending()) return "duplicate";
    const now = Date.now();
    ensureSchema(this.#sql);
    const isNewChat = readMeta(this.#sql, "chat_id") === undefined;
    const previousName = readMeta(this.#sql, "name");
    const result = this.#child.beginTurn(req, now);
    if (result === "started" && isNewChat) {
      this.#announce.chatCreated(req.name, req.level, now);
      // Cleared once the tenant's index lists the child under its parent; until then the alarm retries it.
      this.#timers.set("register", "", now + REGISTER_RETRY_MS);
    } else if (result === "started" && previousName !== req.name) this.#announce.chatUpdated(req.name, now);
    const armed = this.#timers.arm();
    if (result === "started" && isNewChat) await (this.#registering = this.#registerChat(req.tenant, req.chat_id, now));
    await armed;
    return result;
  }

  async stopTurn(parent: StopTurn): Promise<void> {
    if (this.#deletion.pending()) return; // its turns are stopped already
    ensureSchema(this.#sql);
    this.#child.stopTurn(parent, Date.now());
    await this.#timers.arm();
  }

  // ---- running jobs: the fast path, the queue consumer, the heartbeat, child chats ----

  /**
   * Runs a job in this invocation (see `./executor`): the fast path's call to this object, the queue
   * consumer's, or the heartbeat's for a call lost with an earlier instance.
   */
  async runJob(jobId: string, target?: RunTarget): Promise<RunAnswer> {
    if (!hasSchema(this.#sql)) return "finished";
    const answer = await this.#executor.run(jobId, target);
    if (answer !== "duplicate") await this.#timers.arm(); // a duplicate (most queue copies) changed nothing
    return answer;
  }

  /**
   * The queue consumer's hand-off of this chat's messages (SPEC §1's queue copies). Copies of jobs
   * already taken, nearly all of them, end here; the others start as the fast path does, each in an
   * invocation of its own: the first in this one, the rest in calls to this object. A job whose start
   * failed answers `retry`, so the consumer redelivers its message alone.
   */
  async takeQueued(jobIds: string[]): Promise<(RunAnswer | "retry")[]> {
    if (!hasSchema(this.#sql)) return jobIds.map(() => "finished");
    const answers: (RunAnswer | "retry")[] = jobIds.map(() => "duplicate");
    const [first, ...rest] = jobIds.flatMap((id, i) => (this.#executor.wouldRun(id, Date.now()) ? [i] : []));
    if (first === undefined) return answers;
    const self = this.env.CHAT.get(this.ctx.id);
    const start = async (i: number, run: (jobId: string) => Promise<RunAnswer>) => {
      try {
        answers[i] = await run(jobIds[i]!);
      } catch (e) {
        console.warn("starting a queued job failed; its message is retried", jobIds[i], (e as Error).message);
        answers[i] = "retry";
      }
    };
    await Promise.all([
      start(first, (id) => this.runJob(id)),
      forEachLimited(rest, MAX_OPEN_CONNECTIONS - 1, (i) => start(i, (id) => self.runJob(id))),
    ]);
    return answers;
  }

  /** A child chat's report on the subordinate job it ran. */
  async completeJob(jobId: string, lease: string, outcome: JobOutcome): Promise<CompleteResult> {
    if (!hasSchema(this.#sql)) return { status: "stale" };
    const result = this.#machine.complete(jobId, lease, outcome, Date.now(), this.#limits().max_stored_result_bytes);
    await this.#timers.arm();
    return result;
  }

  /** The dead-letter consumer: the queue gave up delivering this job. */
  async failDispatch(jobId: string): Promise<void> {
    if (!hasSchema(this.#sql)) return;
    this.#machine.failUndeliverable(jobId, Date.now());
    await this.#timers.arm();
  }

  // ---- the alarm: deadlines, finished waits, the dispatch watchdog, purge ----

  override async alarm(): Promise<void> {
    if (!hasSchema(this.#sql)) return;
    if (this.#deletion.pending()) return this.#deletion.alarm();
    const now = Date.now();
    try {
      for (const timer of this.#timers.due(now)) {
        try {
          if ((await this.#runTimer(timer, now)) === "forgotten") return;
          this.#timers.done(timer);
        } catch (e) {
          // Production retries a throwing alarm 6 times, then drops it: one failing handler (an RPC
          // that keeps failing) must not stop the chat's deadlines and deliveries behind it.
          console.warn("a timer failed; it runs again later", timer.kind, timer.ref, (e as Error).message);
          this.#timers.postpone(timer, now + FAILED_TIMER_RETRY_MS);
        }
      }
    } finally {
      if (hasSchema(this.#sql)) await this.#timers.arm();
    }
  }

  /** One due timer's handler; "forgotten" when retention found the chat empty and it is gone. */
  async #runTimer(timer: Timer, now: number): Promise<"done" | "forgotten"> {
    switch (timer.kind) {
      case "deadline": {
        // One timer for the chat, at its earliest deadline (older chats may still hold one per job):
        // every job past its deadline ends, then the chat's timer moves to the next one.
        for (const job of this.#jobs.pastDeadline(now)) this.#machine.expire(job, now);
        const next = this.#jobs.nextDeadline();
        if (next !== undefined) this.#timers.set("deadline", "", next);
        break;
      }
      case "wait_done":
        this.#machine.finishWait(timer.ref, now);
        break;
      case "dispatch": {
        // One watchdog for the chat (older chats may still hold one per job): every job that should
        // have started and has not gets its queue copy again; one that did start absorbs it.
        const stuck = this.#jobs.undispatched();
        if (stuck.length) {
          this.#timers.set("dispatch", "", now + DISPATCH_WATCHDOG_MS);
          await this.#dispatcher.send(stuck.map((j) => ({ job_id: j.job_id, attempt: j.attempt + 1 })));
        }
        break;
      }
      case "register": {
        const { tenant, chat_id } = this.#dispatcher.address();
        this.#timers.set("register", "", now + REGISTER_RETRY_MS); // until it lands
        this.ctx.waitUntil((this.#registering = this.#registerChat(tenant, chat_id, Number(readMeta(this.#sql, "created_at") ?? now))));
        break;
      }
      case "exec": {
        // Calls lost with an earlier instance: each recovers in an invocation of its own, at most 4
        // open from this one, beside the alarm so the deadlines due with it are not held up.
        const self = this.env.CHAT.get(this.ctx.id);
        const recover = async (jobId: string) => {
          try {
            await self.runJob(jobId);
          } catch (e) {
            console.warn("recovering a call failed; the next heartbeat tries again", jobId, (e as Error).message);
          }
        };
        const orphans = this.#executor.orphans(now);
        this.ctx.waitUntil(forEachLimited(orphans, MAX_OPEN_CONNECTIONS, recover));
        // Recovered calls become live ones: keep watching while any call may still be lost.
        if (orphans.length > 0 || this.#executor.hasLive()) this.#timers.set("exec", "", now + EXEC_HEARTBEAT_MS);
        break;
      }
      case "agent":
        this.#timers.set("agent", timer.ref, now + AGENT_STEP_SAFETY_MS);
        this.ctx.waitUntil(this.#child.drive(timer.ref));
        break;
      case "report":
        await this.#child.report(timer.ref);
        break;
      case "idle":
        await this.#child.checkIdle(timer.ref, now);
        break;
      case "queue":
        await this.#startQueued(now);
        break;
      case "deliver":
        this.#timers.set("deliver", "", now + DELIVERY_SAFETY_MS);
        this.ctx.waitUntil(this.#outbox.drive());
        break;
      case "purge":
        this.#events.purge(now);
        this.#notifications.purge(now);
        // Events and messages still waiting for delivery keep the chat until they settle.
        const undelivered = this.#events.pendingCount() + this.#notifications.pendingCount();
        if (purgeExpired(this.#jobs, this.#idempotency, this.#turns, this.#retentionMs(), now) === "empty" && !undelivered) {
          await this.#forget();
            return "forgotten";
        }
        this.#schedulePurge(now);
        break;
    }
    return "done";
  }

  /** The limits the chat last admitted jobs under (the defaults for a chat that never admitted any). */
  #limits(): ChatLimits {
    return readLimits(this.#sql) ?? chatLimits(defaultConfig());
  }

  #retentionMs(): number {
    return this.#limits().retention_seconds * 1000;
  }

  #schedulePurge(now: number): void {
    const at = Math.min(
      nextPurgeAt(this.#jobs, this.#idempotency, this.#turns, this.#retentionMs(), now) ?? Infinity,
      (this.#events.oldestSettled() ?? Infinity) + EVENT_TTL_MS,
    );
    if (Number.isFinite(at)) this.#timers.set("purge", "", Math.max(at, now));
  }

  // ---- reads and deletion ----------------------------------------------------

  listJobs(limits: ChatLimits): { jobs: Snapshot[] } | null {
    if (!this.#readable()) return null;
    return { jobs: resultsPayload(this.#jobs.visible(), { now: Date.now(), maxResultChars: limits.max_result_chars }).jobs };
  }

  getJob(jobId: string): { record: JobRecord | null } | null {
    if (!this.#readable()) return null;
    const job = this.#jobs.withContent(jobId);
    return { record: job ? jobRecord(job) : null };
  }

  extras(): { text: string | null } | null {
    if (!this.#readable()) return null;
    return { text: extrasText(this.#jobs.visible(), Date.now()) };
  }

  /** The chat's live stream: the worker forwards the authenticated upgrade here. */
  override async fetch(request: Request): Promise<Response> {
    if (!this.#readable()) return Response.json({ status: "error", error: { code: "chat_not_found", message: "No such chat." } }, { status: 404 });
    const after = parseCursor(new URL(request.url).searchParams.get("after"));
    return this.#stream.accept(after === "invalid" ? null : after);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    answerClose(ws, code, reason);
  }

  /** The tenant stream has listeners again (or none): publish accordingly. */
  async tenantListening(listening: boolean): Promise<void> {
    if (hasSchema(this.#sql)) this.#stream.setListening(listening);
  }

  deliveries(status: DeliveryStatus): { events: DeliveryEntry[] } | null {
    if (!this.#readable()) return null;
    return { events: this.#events.deliveries(status) };
  }

  async redeliver(eventId: string, webhookConfigured: boolean): Promise<Redelivery | null> {
    if (!this.#readable()) return null;
    return this.#outbox.redeliver(eventId, this.#dispatcher.address().chat_id, webhookConfigured);
  }

  logRows() {
    if (!this.#readable()) return null;
    return { rows: this.#log.all() };
  }

  info(): ChatInfo | null {
    if (!this.#readable()) return null;
    const { chat_id } = this.#dispatcher.address();
    const running = this.#jobs.activeSubordinates();
    const level = Number(readMeta(this.#sql, "level") ?? 0);
    return {
      chat_id,
      parent_chat_id: readMeta(this.#sql, "parent_chat_id") ?? null,
      level,
      name: readMeta(this.#sql, "name") ?? chat_id,
      children: this.#children.all().map((c) => ({
        chat_id: c.context_id,
        name: c.name,
        level: level + 1,
        running_jobs: running.filter((j) => j.context_id === c.context_id).length,
      })),
      running_jobs: this.#jobs.activeCount(),
    };
  }

  /** A chat that exists and is not being deleted: anything else reads as 404. */
  #readable(): boolean {
    return hasSchema(this.#sql) && !this.#deletion.pending();
  }

  /** The chat and its whole subtree (see `./deletion`): `pending` while a part of it could not be reached yet. */
  async deleteChat(by: DeletedBy = "request"): Promise<DeletionAnswer> {
    // A hand-over under way may be about to give this chat storage: let it land (or not) first.
    await Promise.allSettled(this.#handovers);
    return this.#deletion.delete(by);
  }

  /** Whether `lease` still holds the running job `jobId` here: a child asks before it starts a turn. */
  holdsJob(jobId: string, lease: string): boolean {
    if (!this.#readable()) return false;
    const job = this.#jobs.get(jobId);
    return job?.state === "running" && job.lease === lease;
  }

  /** A child chat of this one was deleted by its own DELETE. */
  childDeleted(childId: string, usage: Record<string, Usage>): Promise<void> {
    return this.#deletion.childDeleted(childId, usage);
  }

  /** Retention found the chat empty: it returns to no storage and leaves the index. */
  async #forget(): Promise<void> {
    const { tenant, chat_id } = this.#dispatcher.address();
    await this.#wipe();
    if (tenant && chat_id) await this.env.TENANT.getByName(tenantName(tenant)).forgetChat(chat_id);
  }

  async #wipe(): Promise<void> {
    await this.#registering; // so the index never keeps a chat that is gone
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    forgetCached(this.#sql);
  }

  #tenant() {
    return this.env.TENANT.getByName(tenantName(this.#dispatcher.address().tenant));
  }

  /** Adds a new chat to the tenant's index (a child under its parent); false (and the `register` timer stays) if that failed. */
  async #registerChat(tenant: string, chatId: string, now: number): Promise<boolean> {
    const parent = readMeta(this.#sql, "parent_chat_id") ?? null;
    const level = Number(readMeta(this.#sql, "level") ?? 0);
    const name = readMeta(this.#sql, "name") ?? chatId;
    try {
      const { listening } = await this.env.TENANT.getByName(tenantName(tenant)).registerChat(chatId, now, parent, level, name);
      if (!hasSchema(this.#sql)) return true; // deleted meanwhile
      this.#stream.setListening(listening);
      this.#timers.clear("register", "");
      await this.#timers.arm();
      return true;
    } catch (e) {
      console.warn("chat index update failed; the alarm retries it", (e as Error).message);
      return false;
    }
  }
}
