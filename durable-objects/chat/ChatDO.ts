/**
 * ChatDO: one per tenant + chat (`chat/<tenant>/<chat_id>`). It owns the chat's jobs and is the only
 * writer of their state, so every rule is decided in one single-threaded place.
 *
 * This file is the RPC surface and the "does the chat exist" guard, nothing more. The parts are wired
 * in `./chat`; the routes' sides are `./batches`, `./tool-calls` and `./rerun`; the alarm's table is
 * `./alarm`; its WebSockets are `./sockets`; its reads are `./reads`, what the hosts running its
 * work ask is `./runner-protocol` and what the tenant's other objects tell it is `./object-messages`; the rooms are `./storage`, `./events`, `./jobs`, `./subagents` and
 * `./gates` (docs/architecture.md#the-chat-object-room-by-room).
 */
import { DurableObject } from "cloudflare:workers";
import { ApiError, refusal, type Refusal } from "../../src/core/http/errors";
import type { JobRecord } from "../../src/core/jobs/job";
import type { RerunSource } from "../../src/core/jobs/rerun";
import type { SpendAlert } from "../../src/core/budgets/spend";
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
  TurnRequest,
  Usage,
} from "../../src/core/jobs/messages";
import type {
  ToolCallsAwait,
  ToolCallsReply,
  ToolCallsRequest,
  ToolCallsResult,
} from "../../src/core/jobs/tool-calls-messages";
import type { Snapshot } from "../../src/core/jobs/payloads";
import { vouchFor } from "../../src/core/objects/tenant-cache";
import type { DeliveryEntry, DeliveryStatus } from "../../src/core/webhooks/deliveries";
import { runAlarm } from "./alarm";
import { answerWaited, cancelOne, decideOne, startBatch } from "./batches";
import { rerunSources } from "./rerun";
import { Chat } from "./chat";
import type { DeletedBy, DeletionAnswer } from "./deletion";
import type { Redelivery } from "./events/outbox";
import type { LaunchAnswer } from "./jobs/dispatcher";
import type { Progress } from "../../src/core/jobs/progress";
import type { StopTurn } from "./subagents/turn-stop";
import { mayOpen } from "./gates";
import type { Reached } from "./gates/budget";
import * as told from "./object-messages";
import type { McpJobView } from "../../src/core/mcp-server/job-view";
import type { ApprovalAnswer, DecisionRequest } from "./gates/approval";
import { answerWaitedToolCalls, runToolCalls } from "./tool-calls";
import { Handovers } from "./handover";
import { openSocket, socketClosed, socketErrored } from "./sockets";
import type { ChatUsage } from "./storage/usage-days";
import type { TreeSlotAsk } from "./storage/tree-slots";
import type { TranscriptEntry } from "../../src/core/agents/transcript";
import * as reads from "./reads";
import * as hosts from "./runner-protocol";

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

  /** A route's side, with the worker's config check taken on, and a refusal answered as one (an RPC loses details). */
  async #refusing<T>(req: BatchRequest | ToolCallsRequest, run: () => Promise<T>): Promise<T | Refusal> {
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
  async reserveTreeSlots(req: TreeSlotAsk): Promise<{ slots: string[]; holders: string[] }> {
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

  // ---- what the tenant's budget, spend and flow objects tell it: ./object-messages ----

  budgetReached(rootChat: string, batchId: string, over: Reached): Promise<void> {
    return told.budgetReached(this.#chat, rootChat, batchId, over);
  }

  spendAlert(alert: SpendAlert, key: string): Promise<void> {
    return told.spendAlert(this.#chat, alert, key);
  }

  flowOffered(): Promise<void> {
    return told.flowOffered(this.#chat);
  }

  flowGranted(ids: string[]): Promise<void> {
    return told.flowGranted(this.#chat, ids);
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

  // ---- running jobs: the queue consumers, runners, child chats (`./runner-protocol`) ----

  takeQueued(jobIds: string[]): Promise<(LaunchAnswer | "retry")[]> {
    return hosts.takeQueued(this.#chat, jobIds);
  }

  completeJob(jobId: string, lease: string, outcome: JobOutcome): Promise<CompleteResult> {
    return hosts.completeJob(this.#chat, jobId, lease, outcome);
  }

  runnerOutcomes(reports: RunnerOutcome[]): Promise<CompleteResult[]> {
    return hosts.runnerOutcomes(this.#chat, reports);
  }

  claimForRunner(jobIds: string[]): Promise<RunnerCall[]> {
    return hosts.claimForRunner(this.#chat, jobIds);
  }

  renewLeases(calls: { job_id: string; lease: string }[]): string[] {
    return hosts.renewLeases(this.#chat, calls);
  }

  runnerAttempt(jobId: string, lease: string, next: number, phase: "settled" | "sending"): boolean {
    return hosts.runnerAttempt(this.#chat, jobId, lease, next, phase);
  }

  runnerProgress(jobId: string, lease: string, progress: Progress): void {
    hosts.runnerProgress(this.#chat, jobId, lease, progress);
  }

  claimModelAsk(turnId: string, lease: string): Promise<ClaimedAsk | null> {
    return hosts.claimModelAsk(this.#chat, turnId, lease);
  }

  renewModelAsk(turnId: string, lease: string): boolean {
    return hosts.renewModelAsk(this.#chat, turnId, lease);
  }

  modelReplied(turnId: string, lease: string, answer: AskAnswer): Promise<"taken" | "stale"> {
    return hosts.modelReplied(this.#chat, turnId, lease, answer);
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

  failDispatch(jobId: string): Promise<void> {
    return hosts.failDispatch(this.#chat, jobId);
  }

  override alarm(): Promise<void> {
    return runAlarm(this.#chat);
  }

  // ---- reads (`./reads`) ------------------------------------------------------------

  listJobs(limits: ChatLimits): { jobs: Snapshot[] } | null {
    return reads.listJobs(this.#chat, limits);
  }

  getJob(jobId: string): { record: JobRecord | null } | null {
    return reads.getJob(this.#chat, jobId);
  }

  getBatch(batchId: string, limits: ChatLimits): ReturnType<typeof reads.getBatch> {
    return reads.getBatch(this.#chat, batchId, limits);
  }

  jobView(jobId: string, limits: ChatLimits, collect: boolean): { view: McpJobView | null } | null {
    return reads.jobView(this.#chat, jobId, limits, collect);
  }

  jobViews(limits: ChatLimits, limit: number, before: string | null): ReturnType<typeof reads.jobViews> {
    return reads.jobViews(this.#chat, limits, limit, before);
  }

  /** Cancels one job and its subtree, as `parallel`'s cancel does (an MCP client's `tasks/cancel`). */
  cancelJob(jobId: string): Promise<"cancelled" | "unknown" | null> {
    return cancelOne(this.#chat, jobId);
  }

  /** The batch a rerun is asked of, whole, or why it cannot be rerun (docs/api.md#rerun). */
  rerunSources(chatId: string, batchId: string): RerunSource[] | Refusal {
    return rerunSources(this.#store, chatId, batchId);
  }

  /** A person's decision on a call waiting for approval (docs/api.md#approvals). */
  decideApproval(jobId: string, decision: DecisionRequest, limits: ChatLimits): Promise<ApprovalAnswer | null> {
    return decideOne(this.#chat, jobId, decision, limits);
  }

  jobRecords(limit: number, before: string | null): ReturnType<typeof reads.jobRecords> {
    return reads.jobRecords(this.#chat, limit, before);
  }

  extras(): { text: string | null } | null {
    return reads.extras(this.#chat);
  }

  transcript(limit: number): { messages: TranscriptEntry[] } | null {
    return reads.transcript(this.#chat, limit);
  }

  usage(): ChatUsage | null {
    return reads.usage(this.#chat);
  }

  /** The chat's live stream, or a waiting request's socket (`/await`): the authenticated upgrade (`./sockets`). */
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
    return reads.deliveries(this.#chat, status);
  }

  async redeliver(eventId: string, webhookConfigured: boolean): Promise<Redelivery | null> {
    return reads.readable(this.#chat, (s) =>
      this.#chat.outbox.redeliver(eventId, s.address().chat_id, webhookConfigured),
    );
  }

  logRows(): ReturnType<typeof reads.logRows> {
    return reads.logRows(this.#chat);
  }

  info(): ChatInfo | null {
    return reads.info(this.#chat);
  }

  holdsJob(jobId: string, lease: string): boolean {
    return reads.holdsJob(this.#chat, jobId, lease);
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
