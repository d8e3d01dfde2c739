/**
 * The `parallel` route's side of a chat: start a batch (admitted whole or
 * refused whole), await, collect or cancel earlier jobs, and answer with the
 * started or the results payload (docs/api.md#the-parallel-route). `commit` is shared with
 * the `tool-calls` route: it stores an admitted batch and starts it.
 */
import { ApiError, fromRefusal, refusal } from "../../src/core/http/errors";
import type { JobRow } from "../../src/core/jobs/job";
import { refuseRerunRunning, rerunSources } from "./rerun";
import type { RerunOf } from "./storage/rerun-batches";
import { rerunCalls } from "../../src/core/jobs/tool-call-results";
import type { AdmittedToolCall } from "../../src/core/jobs/tool-calls-messages";
import { quoteName } from "../../src/core/calls/names";
import type { SubordinateJobSpec } from "../../src/core/jobs/job-spec";
import type {
  AwaitTicket,
  BatchAnswer,
  BatchRequest,
  BatchResult,
  ChatLimits,
  Delivery,
} from "../../src/core/jobs/messages";
import type { ApprovalRule } from "../../src/core/config/approval-rules";
import type { FlowRule } from "../../src/core/config/flow-rules";
import { withinToolBound } from "../../src/core/jobs/tool-bound";
import type { Chat } from "./chat";
import { beingDeleted, deletedWhileWaiting } from "./deletion";
import { admissionProblem, newJobRows, withJobIds, type AdmittedBatch } from "./jobs/admission";
import { answerBatch } from "./jobs/batch-answer";
import { ASK_BACKUP_MS, askedAtOnce, insertBatch } from "./jobs/batch-rows";
import { openGate } from "./gates";
import { approvalAnswer, askApprovals, decide, type ApprovalAnswer, type DecisionRequest } from "./gates/approval";
import type { SubordinatePlan } from "./storage/children";
import type { ReplayShape } from "./storage/idempotency";
import { admitBatch } from "./subagents/subagent-cap";
import { subordinateState } from "./subagents/subordinate-state";
import { NEW_CHAT_STATE, planSubordinates } from "./subagents/subordinates";

/** The approval rules a request's calls are matched on, with the agent that makes them. */
/** The rules a request's calls are admitted under, and the agent they match on. */
export const rulesOf = (req: {
  approvals?: ApprovalRule[];
  flow?: FlowRule[];
  caller: { agent: string };
  limits: { spend?: unknown };
}) => ({
  agent: req.caller.agent,
  spend: req.limits.spend !== undefined,
  ...(req.approvals ? { approvals: req.approvals } : {}),
  ...(req.flow ? { flow: req.flow } : {}),
});

export async function startBatch(chat: Chat, req: BatchRequest): Promise<BatchAnswer> {
  const { store, tree } = chat;
  const { command } = req;
  const now = Date.now();
  if (store.beingDeleted()) throw beingDeleted(req.chat_id);
  const exists = store.exists();

  if (req.idempotency && exists) {
    const replay = store.idempotency.find(req.route, req.idempotency);
    if (replay) return respond(chat, replay.job_ids, replay.shape, req.limits);
  }

  requireKnown(chat, command.job_ids);
  const carried = req.rerun ? rerunCarried(chat, req) : [];
  if (command.action === "cancel") {
    for (const id of command.job_ids) chat.machine.cancel(id, now);
    await store.timers.arm();
    return respond(
      chat,
      command.job_ids,
      { wait: false, wait_seconds: 0, started_only: false, collect: true },
      req.limits,
    );
  }

  const shape: ReplayShape = {
    wait: command.wait,
    wait_seconds: command.wait_seconds,
    started_only: !command.wait && command.job_ids.length === 0,
    collect: true,
  };
  if (command.jobs.length === 0) return respond(chat, command.job_ids, shape, req.limits);

  // A child reserves its tree's slots from the root first: the only await before admission.
  const jobs = withJobIds(withinToolBound(command.jobs, store.toolBound()));
  const subordinates = jobs.filter((j): j is SubordinateJobSpec => j.kind === "subordinate");
  const reservation = await tree.reserve(req, subordinates, now);
  try {
    // A deletion may have begun during that await: nothing joins a chat about to be wiped.
    if (store.beingDeleted()) throw beingDeleted(req.chat_id);
    // A request with the same key may have been admitted during that await.
    const replay = req.idempotency && store.exists() ? store.idempotency.find(req.route, req.idempotency) : undefined;
    if (replay) {
      tree.release(reservation);
      return respond(chat, replay.job_ids, replay.shape, req.limits);
    }
    // From here to the end of the transaction nothing awaits: the cap checks and the inserts are one step.
    // A refused batch must leave a new chat without storage, so the checks read nothing that isn't there.
    const live = store.exists();
    const problem = admissionProblem(command.jobs.length, live ? store.jobs.activeCount() : 0, req.limits);
    if (problem) throw problem;
    const state = live ? subordinateState(store) : NEW_CHAT_STATE(req.chat_id);
    const plans = planSubordinates(subordinates, state, req.limits, req.caller);
    const ids = subordinates.map((j) => j.job_id!);
    const queued = admitBatch(ids, tree.capState(state, req.limits, reservation, now));
    const batch = newJobRows(jobs, now, {
      chat_id: req.chat_id,
      tiered: false,
      plans,
      queued,
      metadata: req.delivery.metadata,
      ...rulesOf(req),
      ...(req.budget ? { budget: { limits: req.budget } } : {}),
      ...(req.trace ? { trace: { batch: req.trace } } : {}),
      ...(req.rerun ? { rerunOf: req.rerun.jobs } : {}),
    });
    // A rerun answers for the whole batch: the jobs it carried over and its own, in call order.
    const jobIds = [...carried, ...batch.jobs].sort((a, b) => a.idx - b.idx).map((j) => j.job_id);
    await commit(chat, req, batch, plans, now, () => {
      tree.settle(
        reservation,
        ids.filter((id) => !queued.has(id)),
      );
      if (!req.idempotency) return;
      store.idempotency.record(req.route, req.idempotency, { job_ids: [...command.job_ids, ...jobIds], shape }, now);
      store.schedulePurge(now);
    });
    return respond(chat, [...command.job_ids, ...jobIds], shape, req.limits);
  } catch (e) {
    tree.release(reservation);
    throw e;
  }
}

/**
 * Stores an admitted batch in one transaction (plus `extra` writes), arms the
 * alarm in the same write batch, then dispatches what is not held back.
 */
export async function commit(
  chat: Chat,
  target: {
    tenant: string;
    chat_id: string;
    limits: ChatLimits;
    delivery: Delivery;
    rerun?: RerunOf;
    context?: string;
    tool_calls?: string;
  },
  batch: AdmittedBatch,
  plans: Map<number, SubordinatePlan>,
  now: number,
  extra: () => void = () => {},
): Promise<void> {
  const { store } = chat;
  const { isNewChat, toStart } = store.transaction(() => {
    // A new chat's tables are created in the same transaction as its first jobs: a write that
    // fails leaves no half-created chat (one that reads as existing, with no id).
    store.ensure();
    const created = store.meta("chat_id") === undefined;
    store.setMeta("tenant", target.tenant);
    store.setMeta("chat_id", target.chat_id);
    store.setMeta("limits", JSON.stringify(target.limits));
    if (created) {
      store.setMeta("created_at", String(now));
      chat.registration.owed(now); // first: chat.created goes with the index entry
      chat.announce.chatCreated(target.chat_id, 0, now);
    }
    const { callback_url, notify } = target.delivery;
    // A rerun goes on with the turn its batch handed over: its context, and its calls (the jobs that
    // run again under their new ids).
    const { rerun } = target;
    const handed = rerun ? store.batches.handedOver(rerun.of) : {};
    const context = target.context ?? handed.context;
    const tool_calls = target.tool_calls ?? (handed.tool_calls && rerunToolCalls(handed.tool_calls, batch));
    store.batches.add(batch.batch_id, { callback_url, notify, rerun, context, tool_calls }, now);
    const ids = insertBatch(store, batch, plans, now, now + ASK_BACKUP_MS);
    askApprovals(store, chat.announce, batch.jobs, now);
    extra();
    return { isNewChat: created, toStart: ids };
  });
  // Issued before the first await, so it commits with the rows: a reset during the awaits below
  // cannot leave stored jobs without the alarm that re-dispatches and times them out.
  const armed = store.timers.arm();
  // The jobs are stored and the watchdog is armed: they start beside the answer.
  store.ctx.waitUntil(chat.dispatcher.start(toStart));
  // Calls under flow rules or a budget ask beside the answer too (the gate timers set above are the backup).
  const asked = askedAtOnce(batch.jobs);
  if (asked.length)
    store.ctx.waitUntil(Promise.all(asked.map((reason) => openGate(chat, reason, now))).then(() => store.timers.arm()));
  // Beside the answer too (the tenant's index is a listing, not the chat's own state); a deletion
  // waits for it, so the index never keeps a deleted chat.
  if (isNewChat) store.ctx.waitUntil(chat.registration.register(now));
  await armed;
}

function rerunToolCalls(handed: string, batch: AdmittedBatch): string {
  const rerunIds = new Map(batch.jobs.flatMap((j) => (j.rerun_of ? [[j.rerun_of, j.job_id] as const] : [])));
  return JSON.stringify(rerunCalls(JSON.parse(handed) as AdmittedToolCall[], rerunIds));
}

/** A person's decision on a call waiting for approval (docs/api.md#approvals); null when the chat has nothing to read. */
export async function decideOne(
  chat: Chat,
  jobId: string,
  decision: DecisionRequest,
  limits: ChatLimits,
): Promise<ApprovalAnswer | null> {
  if (!chat.store.readable()) return null;
  return approvalAnswer(await decide(chat, jobId, decision, Date.now()), limits.max_result_chars);
}

/** Cancels one job and its subtree, as `parallel`'s cancel does; null when the chat has nothing to read. */
export async function cancelOne(chat: Chat, jobId: string): Promise<"cancelled" | "unknown" | null> {
  if (!chat.store.readable()) return null;
  if (!chat.store.jobs.get(jobId)) return "unknown";
  chat.machine.cancel(jobId, Date.now());
  await chat.store.timers.arm();
  return "cancelled";
}

/**
 * The jobs a rerun carries over, once its batch is read again here: the edge chose from an earlier
 * read, and the jobs it reruns must still be that batch's, and ended.
 */
function rerunCarried(chat: Chat, req: BatchRequest): JobRow[] {
  const rerun = req.rerun!;
  const sources = rerunSources(chat.store, req.chat_id, rerun.of);
  if (!Array.isArray(sources)) throw fromRefusal(sources);
  refuseRerunRunning(chat.store, rerun.of);
  const ids = new Set(sources.map((s) => s.job_id));
  if (![...rerun.jobs, ...rerun.carried].every((id) => ids.has(id))) {
    throw new ApiError(409, "batch_changed", "The batch changed while the rerun was planned; send the rerun again.");
  }
  return chat.store.jobs.many(rerun.carried);
}

/** Unknown ids are reported all together, before anything changes (docs/api.md#the-parallel-route). */
export function requireKnown(chat: Chat, ids: string[]): void {
  const known = new Set(chat.store.exists() ? chat.store.jobs.many(ids).map((j) => j.job_id) : []);
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) {
    throw new ApiError(400, "unknown_job_ids", `Unknown parallel job id(s): ${unknown.map(quoteName).join(", ")}`, {
      // No job id fanout makes is longer than 64 characters: a cut one never named a job.
      job_ids: unknown.map(quoteName),
    });
  }
}

/**
 * The payload, or, when the request waits and a job it names is still active, the ticket the
 * worker waits with (docs/architecture.md#awaits): a chat is billed while it holds a request.
 */
function respond(chat: Chat, ids: string[], shape: ReplayShape, limits: ChatLimits): BatchAnswer {
  if (shape.wait && chat.store.jobs.stillActive(ids).length > 0)
    return { ok: true, awaiting: { job_ids: ids, wait_ms: shape.wait_seconds * 1000 } };
  return answerBatch(chat.store, ids, shape, limits, false);
}

/**
 * The answer to a request whose wait is over (docs/architecture.md#awaits): a job still active then means the
 * wait timed out.
 */
export function answerWaited(chat: Chat, ticket: AwaitTicket, limits: ChatLimits): BatchResult {
  if (!chat.store.exists()) return refusal(deletedWhileWaiting());
  return answerBatch(
    chat.store,
    ticket.job_ids,
    { started_only: false, collect: true },
    limits,
    chat.store.jobs.stillActive(ticket.job_ids).length > 0,
  );
}
