/**
 * The `tool-calls` route's side of a chat: one assistant message's calls,
 * admitted call by call in tiers (read-only calls, subordinates and `wait`
 * together, side-effecting calls one at a time after them), answered in call
 * order with one result per call (docs/api.md#tiered-execution-and-the-tool-calls-route).
 */
import { ApiError, refusal } from "../../src/core/http/errors";
import type { ChatLimits } from "../../src/core/jobs/messages";
import type {
  AdmittedToolCall,
  ToolCallEntry,
  ToolCallsAnswer,
  ToolCallsAwait,
  ToolCallsReply,
  ToolCallsRequest,
  ToolCallsResult,
} from "../../src/core/jobs/tool-calls-messages";
import { withinToolBound } from "../../src/core/jobs/tool-bound";
import {
  admittedCall,
  deliveredJobIds,
  forReplay,
  fromReplay,
  reportedJobIds,
  toolCallResult,
  toolCallsStatus,
} from "../../src/core/jobs/tool-call-results";
import { commit, requireKnown, rulesOf } from "./batches";
import type { Chat } from "./chat";
import { beingDeleted, deletedWhileWaiting } from "./deletion";
import { newJobRows, withJobIds } from "./jobs/admission";
import { traceIdOf } from "../../src/core/telemetry/trace-context";

export async function runToolCalls(chat: Chat, req: ToolCallsRequest): Promise<ToolCallsReply> {
  const { store, tree } = chat;
  const now = Date.now();
  if (store.beingDeleted()) throw beingDeleted(req.chat_id);
  if (req.idempotency && store.exists()) {
    // A retried request gets the same jobs back: nothing runs again.
    const replay = store.idempotency.find("tool-calls", req.idempotency)?.tool_calls;
    if (replay) {
      const again = { ...replay, calls: fromReplay(replay.calls, req.entries) };
      return req.wait ? answer(chat, again, req.wait_seconds, req.limits, false) : started(chat, again, req.limits);
    }
  }
  const bound = store.toolBound();
  const entries = req.entries.map((e) => withinBound(withKnownJobs(chat, e), bound));
  const specs = withJobIds(entries.flatMap((e) => (e.spec ? [e.spec] : (e.parallel?.specs ?? []))));
  const reservation = await tree.reserveTiered(req, specs, req.caller, now);
  if (store.beingDeleted()) {
    tree.release(reservation); // the deletion began during that await
    throw beingDeleted(req.chat_id);
  }
  const { admitted, plans, refusals, queued } = tree.admitTiered(
    req.chat_id,
    specs,
    req.limits,
    req.caller,
    reservation,
    now,
  );
  const batch = newJobRows(admitted, now, {
    chat_id: req.chat_id,
    tiered: req.order !== "parallel",
    plans,
    queued,
    metadata: req.delivery.metadata,
    ...rulesOf(req),
    ...(req.budget ? { budget: { limits: req.budget } } : {}),
    ...(req.trace ? { trace: { batch: req.trace } } : {}),
  });
  const jobIds = new Map(batch.jobs.map((j) => [j.idx, j.job_id]));
  const answered: Answered = {
    batch_id: admitted.length ? batch.batch_id : "",
    calls: entries.map((e) => admittedCall(e, refusals, jobIds)),
  };
  if (admitted.length) {
    // The calls as admitted go with the batch: its `batch.finished` answers every call, refused ones too.
    const turn = { ...req, tool_calls: JSON.stringify(answered.calls) };
    await commit(chat, turn, batch, plans, now, () => {
      if (!req.idempotency) return;
      const shape = { wait: true, wait_seconds: req.wait_seconds, started_only: false, collect: false };
      const tool_calls = { ...answered, calls: forReplay(answered.calls) };
      store.idempotency.record(
        "tool-calls",
        req.idempotency,
        { job_ids: batch.jobs.map((j) => j.job_id), shape, tool_calls },
        now,
      );
      store.schedulePurge(now);
    });
  }
  const cancels = answered.calls.flatMap((c) => (c.parallel?.cancel ? c.parallel.job_ids : []));
  if (cancels.length) {
    for (const id of cancels) chat.machine.cancel(id, now);
    await store.timers.arm();
  }
  // With no call admitted there is no batch and no batch.finished to wait for: the answer is final.
  if (!req.wait && admitted.length) return started(chat, answered, req.limits);
  return answer(chat, answered, req.wait_seconds, req.limits, true);
}

/**
 * `wait: false`: each call's job and its state now, in call order (a call refused at once is its
 * error entry), and `started`; the results come in `batch.finished`. Nothing is collected.
 */
function started(chat: Chat, stored: Answered, limits: ChatLimits): ToolCallsReply {
  return { ok: true, answer: { ...answerToolCalls(chat, stored, limits, false), status: "started" } };
}

/** The calls of one request once admitted or refused, in call order. */
type Answered = { batch_id: string; calls: AdmittedToolCall[] };

/** A refusal of one call becomes that call's own error entry. */
function asErrorEntry(entry: ToolCallEntry, e: unknown): ToolCallEntry {
  if (!(e instanceof ApiError)) throw e;
  return {
    index: entry.index,
    tool_call_id: entry.tool_call_id,
    name: entry.name,
    error: { code: e.code, message: e.message, ...e.details },
  };
}

/** A call outside the chat's tools is its own error entry; a `parallel` call with one is refused whole. */
function withinBound(entry: ToolCallEntry, bound: string[] | null): ToolCallEntry {
  try {
    if (entry.spec) return { ...entry, spec: withinToolBound([entry.spec], bound)[0] };
    if (entry.parallel)
      return { ...entry, parallel: { ...entry.parallel, specs: withinToolBound(entry.parallel.specs, bound) } };
    return entry;
  } catch (e) {
    return asErrorEntry(entry, e);
  }
}

/** A `parallel` call naming jobs this chat does not have is refused whole, as on the `parallel` route. */
function withKnownJobs(chat: Chat, entry: ToolCallEntry): ToolCallEntry {
  if (!entry.parallel?.job_ids.length) return entry;
  try {
    requireKnown(chat, entry.parallel.job_ids);
    return entry;
  } catch (e) {
    return asErrorEntry(entry, e);
  }
}

/**
 * The answer in call order, or, while a call's job is still active, the ticket the worker waits
 * (≤ waitSeconds) with, off the chat (docs/architecture.md#awaits).
 */
function answer(
  chat: Chat,
  stored: Answered,
  waitSeconds: number,
  limits: ChatLimits,
  collect: boolean,
): ToolCallsReply {
  const awaited = deliveredJobIds(stored.calls);
  if (awaited.length > 0 && chat.store.jobs.stillActive(awaited).length > 0) {
    return {
      ok: true,
      awaiting: {
        job_ids: awaited,
        wait_ms: waitSeconds * 1000,
        stored: { batch_id: stored.batch_id, calls: stored.calls },
        collect,
      },
    };
  }
  return { ok: true, answer: answerToolCalls(chat, stored, limits, collect) };
}

/** The answer to a `/tool-calls` request whose wait is over (docs/architecture.md#awaits). */
export function answerWaitedToolCalls(chat: Chat, ticket: ToolCallsAwait, limits: ChatLimits): ToolCallsResult {
  if (!chat.store.exists()) return refusal(deletedWhileWaiting());
  return { ok: true, answer: answerToolCalls(chat, ticket.stored, limits, ticket.collect) };
}

/** The calls' results in call order once the wait is over (a job still active then is reported so). */
export function answerToolCalls(chat: Chat, stored: Answered, limits: ChatLimits, collect: boolean): ToolCallsAnswer {
  const { jobs } = chat.store;
  const awaited = deliveredJobIds(stored.calls);
  const done = awaited.length === 0 || jobs.stillActive(awaited).length === 0;
  const now = Date.now();
  const rows = new Map(jobs.many(reportedJobIds(stored.calls)).map((r) => [r.job_id, r]));
  const results = stored.calls.map((call) =>
    toolCallResult(call, rows, { now, maxResultChars: limits.max_result_chars }),
  );
  if (collect && awaited.length)
    jobs.markCollected(
      awaited.flatMap((id) => rows.get(id) ?? []),
      now,
    );
  // The batch's trace, when it is kept: its jobs' (a refused call has no job, an earlier job named by a
  // `parallel` call may be of another batch, so the batch's own jobs say it).
  const traced = [...rows.values()].find((r) => r.batch_id === stored.batch_id && r.trace);
  return {
    status: toolCallsStatus(results, !done),
    batch_id: stored.batch_id || null,
    results,
    ...(traced ? traceIdOf(traced) : {}),
  };
}
