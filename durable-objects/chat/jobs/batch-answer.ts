/**
 * A batch's answer once its wait is over: the results payload of its jobs, collected when it carries their
 * final state. The `parallel` route's side asks for it by RPC; a waiting request's socket is sent it with the
 * wake (`waiters.ts`), which spares the worker that round trip on every `wait:true` batch.
 */
import type { BatchResult, ChatLimits } from "../../../src/core/jobs/messages";
import { resultsPayload, startedPayload } from "../../../src/core/jobs/payloads";
import type { ChatStore } from "../storage/chat-store";
import type { ReplayShape } from "../storage/idempotency";

/**
 * The most a wake carries as text: a larger answer (32 calls of long results) is asked for by RPC instead,
 * well inside the platform's 1 MiB WebSocket message.
 */
export const MAX_WAKE_ANSWER_CHARS = 512 * 1024;

/** Builds the payload once any wait is over; a response that carries a final snapshot collects it. */
export function answerBatch(
  store: ChatStore,
  ids: string[],
  shape: Pick<ReplayShape, "started_only" | "collect">,
  limits: Pick<ChatLimits, "max_result_chars">,
  waitTimedOut: boolean,
): BatchResult {
  const { jobs } = store;
  const rows = jobs.many(ids);
  const now = Date.now();
  const view = { now, maxResultChars: limits.max_result_chars };
  // Always the started shape, even if a job already finished: it carries no result, so nothing is collected.
  if (shape.started_only) return { ok: true, payload: startedPayload(rows, view) };
  const payload = resultsPayload(rows, { ...view, waitTimedOut });
  if (shape.collect) jobs.markCollected(rows, now);
  return { ok: true, payload };
}

/**
 * What a waiting request's socket is sent when its jobs have all ended: their answer as JSON, or undefined
 * when the chat is gone (the RPC answers that refusal) or the answer is too long for one message.
 */
export function wakeAnswer(store: ChatStore, ids: string[], maxResultChars: number): string | undefined {
  if (!store.exists()) return undefined;
  const text = JSON.stringify(
    answerBatch(store, ids, { started_only: false, collect: true }, { max_result_chars: maxResultChars }, false),
  );
  return text.length <= MAX_WAKE_ANSWER_CHARS ? text : undefined;
}
