/**
 * A request that waits for jobs waits here, in the worker (docs/architecture.md#awaits), which is
 * billed for CPU only however long it waits, and not in the chat, which would be billed every
 * second of it. The chat answers at once with a ticket; the worker opens a hibernatable WebSocket
 * to the chat, which sends one message when the jobs have all ended: a batch's answer itself, or
 * only that they ended, and then the worker asks the chat for the answer. A socket that drops (a deploy restarts the chat) is opened again, through a new
 * stub (one from before a restart stays broken), while time is left.
 */
import {
  AWAIT_PATH,
  JOB_PROGRESSED,
  JOBS_ENDED,
  type AwaitTicket,
  type BatchAnswer,
  type BatchResult,
  type ChatLimits,
} from "../../core/jobs/messages";
import type { ToolCallsReply, ToolCallsResult } from "../../core/jobs/tool-calls-messages";
import { sleep, within } from "../../core/util/abort";

type Chat = ReturnType<Env["CHAT"]["getByName"]>;

/** The pause before a dropped socket is opened again. */
const REOPEN_MS = 100;

/** A `parallel` or `spawn` answer, once its wait (if it has one) is over. */
export async function settleBatch(chat: () => Chat, answer: BatchAnswer, limits: ChatLimits): Promise<BatchResult> {
  if (!answer.ok || !("awaiting" in answer)) return answer;
  const { awaiting } = answer;
  const woke = await untilJobsEnd(chat, awaiting, limits.max_result_chars);
  if (typeof woke === "object") return woke.answer as BatchResult;
  return onceMore(async (c): Promise<BatchResult> => await c.answerBatch(awaiting, limits), chat);
}

/** A `/tool-calls` answer, once its wait (if it has one) is over. */
export async function settleToolCalls(
  chat: () => Chat,
  reply: ToolCallsReply,
  limits: ChatLimits,
): Promise<ToolCallsResult> {
  if (!reply.ok || !("awaiting" in reply)) return reply;
  const { awaiting } = reply;
  await untilJobsEnd(chat, awaiting);
  return onceMore(async (c): Promise<ToolCallsResult> => await c.answerToolCalls(awaiting, limits), chat);
}

/**
 * The answer, asked again through a new stub if the chat restarted at that moment (asking twice only collects
 * twice).
 */
async function onceMore<T>(ask: (chat: Chat) => Promise<T>, chat: () => Chat): Promise<T> {
  try {
    return await ask(chat());
  } catch {
    return ask(chat());
  }
}

/** A job's MCP progress as a waiting request hears it (`JOB_PROGRESSED`). */
export type HeardProgress = { job_id: string; progress: number; total?: number; message?: string };

/**
 * True once every job the ticket names has ended, false when its time ran out first (or the chat is gone: its
 * answer says so). Given `answer` (a batch's `max_result_chars`), the chat may send the batch's answer with the
 * wake: then that answer. Given `onProgress`, the jobs' MCP progress is heard as it comes.
 */
export async function untilJobsEnd(
  chat: () => Chat,
  ticket: AwaitTicket,
  answer?: number,
  onProgress?: (progress: HeardProgress) => void,
): Promise<boolean | { answer: unknown }> {
  const deadline = Date.now() + ticket.wait_ms;
  const url = new URL(`https://chat${AWAIT_PATH}`);
  for (const id of ticket.job_ids) url.searchParams.append("job_id", id);
  if (answer !== undefined) url.searchParams.set("answer", String(answer));
  if (onProgress) url.searchParams.set("progress", "1");
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const opened = await within(
      chat().fetch(url, { headers: { upgrade: "websocket" } }),
      left,
      "opening the wait's socket",
    ).then(
      (res) => res,
      () => undefined,
    );
    if (opened?.status === 404) return false; // the chat is gone: its answer says so
    const socket = opened?.webSocket;
    if (!socket) {
      // The chat is restarting (or refused for a moment): try again while the wait has time left.
      await sleep(Math.min(REOPEN_MS, Math.max(0, deadline - Date.now())), new AbortController().signal);
      continue;
    }
    socket.accept();
    const outcome = await new Promise<"ended" | "timeout" | "dropped" | { answer: unknown }>((resolve) => {
      const timer = setTimeout(() => resolve("timeout"), left);
      const settle = (how: "ended" | "dropped" | { answer: unknown }) => {
        clearTimeout(timer);
        resolve(how);
      };
      socket.addEventListener("message", (e) => {
        if (e.data === JOBS_ENDED) settle("ended");
        else if (typeof e.data === "string" && e.data.startsWith(JOB_PROGRESSED))
          onProgress?.(JSON.parse(e.data.slice(JOB_PROGRESSED.length)) as HeardProgress);
        else if (typeof e.data === "string" && e.data.startsWith("{")) settle({ answer: JSON.parse(e.data) });
      });
      socket.addEventListener("close", () => settle("dropped"));
      socket.addEventListener("error", () => settle("dropped"));
    });
    try {
      socket.close(1000, typeof outcome === "string" ? outcome : "ended");
    } catch {
      // Closed by the other side already.
    }
    if (typeof outcome === "object") return outcome;
    if (outcome !== "dropped") return outcome === "ended";
    await sleep(Math.min(REOPEN_MS, Math.max(0, deadline - Date.now())), new AbortController().signal);
  }
}
