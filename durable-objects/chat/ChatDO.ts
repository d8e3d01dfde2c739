/**
 * ChatDO: one per tenant + chat (`chat/<tenant>/<chat_id>`). It owns the
 * chat's jobs and is the only writer of their state, so every rule is decided
 * in one single-threaded place.
 *
 * This file is the RPC surface and the "does the chat exist" guard, nothing
 * more. The parts are wired in `./chat`; the routes' sides are `./batches` and
 * `./tool-calls`; the alarm's table is `./alarm`; its WebSockets are `./sockets`;
 * the rooms are `./storage`, `./events`, `./jobs`, `./subagents` and `./gates`
 * (docs/architecture.md#the-chat-object-room-by-room).
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, refusal } from "../../src/core/http/errors";
import { extrasText } from "../../src/core/jobs/extras";
import type { JobRecord } from "../../src/core/jobs/job";
import type {
  AskAnswer,
  AwaitTicket,
  BatchAnswer,
  BatchRequest,
  BatchResult,
  ChatInfo,
  ClaimedAsk,
  ChatLimits,
  CompleteResult,
  JobOutcome,
  RunnerCall,
  RunnerOutcome,
  ToolCallsAwait,
  ToolCallsReply,
  ToolCallsRequest,
  ToolCallsResult,
  TurnRequest,
  Usage,
} from "../../src/core/jobs/messages";
import { resultsPayload, type Snapshot } from "../../src/core/jobs/payloads";
import { vouchFor } from "../../src/core/objects/tenant-cache";
import type { DeliveryEntry, DeliveryStatus } from "../../src/core/webhooks/deliveries";
import { runAlarm } from "./alarm";
import { answerWaited, startBatch } from "./batches";
import { Chat } from "./chat";
import type { DeletedBy, DeletionAnswer } from "./deletion";
import type { Redelivery } from "./events/outbox";
import type { LaunchAnswer } from "./jobs/dispatcher";
import type { Progress } from "../../src/core/jobs/progress";
import type { StopTurn } from "./subagents/turn-stop";
import { claimAsk, renewAsk } from "./subagents/model-asks";
import { mayOpen } from "./gates";
import { budgetReached, type Reached } from "./gates/budget";
import { approvalAnswer, decide, type ApprovalAnswer, type DecisionRequest } from "./gates/approval";
import { answerWaitedToolCalls, runToolCalls } from "./tool-calls";
import { Handovers } from "./handover";
import { openSocket, socketClosed, socketErrored } from "./sockets";
import type { ChatStore } from "./storage/chat-store";
import type { ChatUsage } from "./storage/usage-days";
import { chatInfo } from "./storage/chat-info";
import { recordOf, recordsPage } from "./storage/job-records";
import { transcriptEntry, type TranscriptEntry } from "../../src/core/agents/transcript";

export class ChatDO extends DurableObject<Env> {
  readonly #chat = new Chat(this.ctx, () => this.env);
  readonly #store = this.#chat.store;
  /** Hand-overs from the parent waiting on its answer: a deletion waits for them (see `beginTurn`). */
  readonly #handovers = new Handovers();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(() => this.#chat.resume());
  }

  // ---- the routes: `parallel` and `tool-calls` ------------------------------------

  startBatch(req: BatchRequest): Promise<BatchAnswer> {
    return this.#refusing(req, () => startBatch(this.#chat, req));
  }

  runToolCalls(req: ToolCallsRequest): Promise<ToolCallsReply> {
    return this.#refusing(req, () => runToolCalls(this.#chat, req));
  }

  /** The answer to a request whose wait is over (`awaiting`, docs/architecture.md#awaits). */
  answerBatch(ticket: AwaitTicket, limits: ChatLimits): BatchResult {
    return answerWaited(this.#chat, ticket, limits);
  }

  answerToolCalls(ticket: ToolCallsAwait, limits: ChatLimits): ToolCallsResult {
    return answerWaitedToolCalls(this.#chat, ticket, limits);
  }

  /**
   * A route's side, with the worker's config check taken on, and a refusal answered as one (an RPC would lose
   * the error's details).
   */
  async #refusing<T>(
    req: BatchRequest | ToolCallsRequest,
    run: () => Promise<T>,
  ): Promise<T | ReturnType<typeof refusal>> {
    if (req.config_check) vouchFor(req.tenant, req.config_check);
    try {
      return await run();
    } catch (e) {
      if (e instanceof ApiError) return refusal(e);
      throw e;
    }
  }

  // ---- the per-tree subagent cap: the root's side ----------------------------------

  /** Called by the tree's descendants before their admission. */
  async reserveTreeSlots(req: {
    job_ids: string[];
    limit: number;
    expires_at: number;
  }): Promise<{ slots: string[]; holders: string[] }> {
    // A root that is gone, or going, grants nothing (and a late ask must not give it storage again).
    if (!this.#store.readable()) return { slots: [], holders: [] };
    return this.#store.treeSlots.grant(req.job_ids, req.limit, req.expires_at, Date.now());
  }

  async releaseTreeSlots(slots: string[]): Promise<void> {
    if (!this.#store.readable()) return;
    this.#store.treeSlots.release(slots);
    mayOpen(this.#store, "subagent_slot", Date.now());
    await this.#store.timers.arm();
  }

  /** The budget of a batch this chat's jobs count against was reached (docs/api.md#budgets). */
  async budgetReached(rootChat: string, batchId: string, over: Reached): Promise<void> {
    if (!this.#store.readable()) return;
    budgetReached(this.#chat, rootChat, batchId, over, Date.now());
    await this.#store.timers.arm();
  }

  /** A flow object has room for a call of this chat (docs/architecture.md#flow-objects): the flow gate asks again. */
  async flowOffered(): Promise<void> {
    if (!this.#store.readable()) return;
    mayOpen(this.#store, "flow", Date.now());
    this.#chat.child.flowOffered(Date.now());
    await this.#store.timers.arm();
  }

  // ---- a child's side: turns handed over by the parent's subordinate jobs ----

  beginTurn(req: TurnRequest): Promise<"started" | "duplicate" | "expired"> {
    return this.#handovers.run(this.#chat, req);
  }

  async stopTurn(parent: StopTurn): Promise<void> {
    if (this.#store.beingDeleted()) return; // its turns are stopped already
    this.#store.ensure();
    this.#chat.child.stopTurn(parent, Date.now());
    await this.#store.timers.arm();
  }

  // ---- running jobs: the queue consumers, runners, child chats (docs/architecture.md#where-a-call-runs) ----

  /** The queue consumer's hand-off of this chat's messages (each batch's queue copy): see `Dispatcher.takeQueued`. */
  async takeQueued(jobIds: string[]): Promise<(LaunchAnswer | "retry")[]> {
    if (!this.#store.exists()) return jobIds.map(() => "finished");
    const answers = await this.#chat.dispatcher.takeQueued(jobIds);
    if (answers.some((a) => a !== "duplicate")) await this.#store.timers.arm();
    return answers;
  }

  /** A child chat's report on its subordinate turn. */
  async completeJob(jobId: string, lease: string, outcome: JobOutcome): Promise<CompleteResult> {
    if (!this.#store.exists()) return { status: "stale" };
    const result = this.#chat.machine.complete(
      jobId,
      lease,
      outcome,
      Date.now(),
      this.#store.limits().max_stored_result_bytes,
    );
    await this.#store.timers.arm();
    return result;
  }

  /**
   * A runner's outcomes: the calls that ended while its previous report was on its way, ended here
   * in one invocation (`src/core/jobs/report-queue`).
   */
  async runnerOutcomes(reports: RunnerOutcome[]): Promise<CompleteResult[]> {
    if (!this.#store.exists()) return reports.map(() => ({ status: "stale" }));
    const results = this.#chat.runners.reported(reports, Date.now());
    await this.#store.timers.arm();
    return results;
  }

  /** A `calls` consumer takes the calls its message named: claimed for it, with their targets. */
  claimForRunner(jobIds: string[]): Promise<RunnerCall[]> {
    return this.#store.exists() ? this.#chat.dispatcher.claimForQueuedRunner(jobIds) : Promise.resolve([]);
  }

  /** A runner renews its calls' leases; it stops the ones answered (ended, or no longer its). */
  renewLeases(calls: { job_id: string; lease: string }[]): string[] {
    return this.#store.exists() ? this.#chat.runners.renew(calls, Date.now()) : calls.map((c) => c.job_id);
  }

  /** A runner's record of a retry (see `src/core/jobs/run-call`); false tells the runner the job is over. */
  runnerAttempt(jobId: string, lease: string, next: number, phase: "settled" | "sending"): boolean {
    return this.#store.exists() && this.#chat.runners.attempt(jobId, lease, next, phase);
  }

  /** A runner's MCP call reported progress (kept to one a second by the runner). */
  runnerProgress(jobId: string, lease: string, progress: Progress): void {
    if (this.#store.exists()) this.#chat.runners.progressed(jobId, lease, progress);
  }

  /**
   * A Worker runner takes a child's model request (docs/architecture.md#model-requests): what to send, or
   * null when it is not the runner's to make.
   */
  async claimModelAsk(turnId: string, lease: string): Promise<ClaimedAsk | null> {
    return this.#store.readable() ? claimAsk(this.#chat.child, turnId, lease, Date.now()) : null;
  }

  renewModelAsk(turnId: string, lease: string): boolean {
    return this.#store.readable() && renewAsk(this.#chat.child, turnId, lease, Date.now());
  }

  /** The model's answer, from the runner that made the request: the turn's step goes on with it. */
  modelReplied(turnId: string, lease: string, answer: AskAnswer): Promise<"taken" | "stale"> {
    return this.#store.readable() ? this.#chat.child.replied(turnId, lease, answer) : Promise.resolve("stale");
  }

  // Runners of the version before this one report under these names; a deploy can leave some running.
  laneOutcomes(reports: RunnerOutcome[]): Promise<CompleteResult[]> {
    return this.runnerOutcomes(reports);
  }

  laneAttempt(jobId: string, lease: string, next: number, phase: "settled" | "sending"): boolean {
    return this.runnerAttempt(jobId, lease, next, phase);
  }

  laneProgress(jobId: string, lease: string, progress: Progress): void {
    this.runnerProgress(jobId, lease, progress);
  }

  /** The dead-letter consumer: the queue gave up delivering this job. */
  async failDispatch(jobId: string): Promise<void> {
    if (!this.#store.exists()) return;
    this.#chat.machine.failUndeliverable(jobId, Date.now());
    await this.#store.timers.arm();
  }

  override alarm(): Promise<void> {
    return runAlarm(this.#chat);
  }

  // ---- reads ----------------------------------------------------------------------

  /** `read` of the chat's storage, or null when the chat does not exist (or is being deleted): a 404. */
  #read<T>(read: (store: ChatStore) => T): T | null {
    return this.#store.readable() ? read(this.#store) : null;
  }

  listJobs(limits: ChatLimits): { jobs: Snapshot[] } | null {
    return this.#read((s) => ({
      jobs: resultsPayload(s.jobs.visible(), { now: Date.now(), maxResultChars: limits.max_result_chars }).jobs,
    }));
  }

  getJob(jobId: string): { record: JobRecord | null } | null {
    return this.#read((s) => ({ record: recordOf(s.jobs, jobId) }));
  }

  /** A person's decision on a call waiting for approval (docs/api.md#approvals). */
  async decideApproval(jobId: string, decision: DecisionRequest, limits: ChatLimits): Promise<ApprovalAnswer | null> {
    return this.#read(async () =>
      approvalAnswer(await decide(this.#chat, jobId, decision, Date.now()), limits.max_result_chars),
    );
  }

  /** A page of the chat's job records, newest first; `next_before` asks for the next one. */
  jobRecords(limit: number, before: string | null): ReturnType<typeof recordsPage> | null {
    return this.#read((s) => recordsPage(s.jobs, limit, before));
  }

  extras(): { text: string | null } | null {
    return this.#read((s) => ({ text: extrasText(s.jobs.visible(), Date.now()) }));
  }

  /**
   * A child chat's conversation as people read it, the newest `limit` messages
   * (docs/api.md#a-subagents-transcript).
   */
  transcript(limit: number): { messages: TranscriptEntry[] } | null {
    return this.#read((s) => ({ messages: s.turns.transcript(limit).map(transcriptEntry) }));
  }

  /** The chat's usage and its subtree's, the last 30 days (docs/api.md#usage-and-cost). */
  usage(): ChatUsage | null {
    return this.#read((s) => s.usage.summary(Date.now(), s.jobs.endedUsage()));
  }

  /**
   * The chat's live stream, or a waiting request's socket (`/await`): the worker forwards the authenticated
   * upgrade here (`./sockets`).
   */
  override fetch(request: Request): Promise<Response> {
    return openSocket(this.ctx, this.#chat, request);
  }

  override webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    return socketClosed(this.ctx, this.#chat, ws, code, reason);
  }

  override webSocketError(ws: WebSocket): Promise<void> {
    return socketErrored(this.ctx, this.#chat, ws);
  }

  /** The tenant recounts its live streams. */
  openStreams(): number {
    return this.#store.exists() ? this.#chat.stream.open() : 0;
  }

  /** The tenant stream has listeners again (or none): publish accordingly. */
  async tenantListening(listening: boolean): Promise<void> {
    if (this.#store.exists()) this.#chat.stream.setListening(listening);
  }

  deliveries(status: DeliveryStatus): { events: DeliveryEntry[] } | null {
    return this.#read((s) => ({ events: s.events.deliveries(status) }));
  }

  async redeliver(eventId: string, webhookConfigured: boolean): Promise<Redelivery | null> {
    return this.#read((s) => this.#chat.outbox.redeliver(eventId, s.address().chat_id, webhookConfigured));
  }

  logRows() {
    return this.#read((s) => ({ rows: s.log.all() }));
  }

  info(): ChatInfo | null {
    return this.#read(chatInfo);
  }

  /** Whether `lease` still holds the running job `jobId` here: a child asks before it starts a turn. */
  holdsJob(jobId: string, lease: string): boolean {
    if (!this.#store.readable()) return false;
    const job = this.#store.jobs.get(jobId);
    return job?.state === "running" && job.lease === lease;
  }

  // ---- deletion -------------------------------------------------------------------

  /** The chat and its whole subtree (see `./deletion`): `pending` while a part of it could not be reached yet. */
  async deleteChat(by: DeletedBy = "request"): Promise<DeletionAnswer> {
    // A hand-over under way may be about to give this chat storage: let it land (or not) first.
    await this.#handovers.settled();
    return this.#chat.deletion.delete(by);
  }

  /** A child chat of this one was deleted by its own DELETE. */
  childDeleted(childId: string, usage: Record<string, Usage>): Promise<void> {
    return this.#chat.deletion.childDeleted(childId, usage);
  }
}
