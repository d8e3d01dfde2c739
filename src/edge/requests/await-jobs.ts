/**
 * A request that waits for jobs waits here, in the worker (docs/architecture.md#awaits), which is
 * billed for CPU only however long it waits, and not in the chat, which would be billed every
 * second of it. The chat answers at once with a ticket; the worker opens a hibernatable WebSocket
 * to the chat, which sends one message when the jobs have all ended, and then asks the chat for
 * the answer. A socket that drops (a deploy restarts the chat) is opened again, through a new
 * stub (one from before a restart stays broken), while time is left.
 */
import {
  AWAIT_PATH,
  JOBS_ENDED,
  type AwaitTicket,
  type BatchAnswer,
  type BatchResult,
  type ChatLimits,
  type ToolCallsReply,
  type ToolCallsResult,
} from "../../core/jobs/messages";
import { sleep, within } from "../../core/util/abort";

type Chat = ReturnType<Env["CHAT"]["getByName"]>;

/** The pause before a dropped socket is opened again. */
const REOPEN_MS = 100;

/** A `parallel` or `spawn` answer, once its wait (if it has one) is over. */
export async function settleBatch(chat: () => Chat, answer: BatchAnswer, limits: ChatLimits): Promise<BatchResult> {
  if (!answer.ok || !("awaiting" in answer)) return answer;
  const { awaiting } = answer;
  await untilJobsEnd(chat, awaiting);
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

/**
 * True once every job the ticket names has ended, false when its time ran out first (or the chat is gone: its
 * answer says so).
 */
export async function untilJobsEnd(chat: () => Chat, ticket: AwaitTicket): Promise<boolean> {
  const deadline = Date.now() + ticket.wait_ms;
  const url = new URL(`https://chat${AWAIT_PATH}`);
  for (const id of ticket.job_ids) url.searchParams.append("job_id", id);
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
    const outcome = await new Promise<"ended" | "timeout" | "dropped">((resolve) => {
      const timer = setTimeout(() => resolve("timeout"), left);
      const settle = (how: "ended" | "dropped") => {
        clearTimeout(timer);
        resolve(how);
      };
      socket.addEventListener("message", (e) => e.data === JOBS_ENDED && settle("ended"));
      socket.addEventListener("close", () => settle("dropped"));
      socket.addEventListener("error", () => settle("dropped"));
    });
    try {
      socket.close(1000, outcome);
    } catch {
      // Closed by the other side already.
    }
    if (outcome !== "dropped") return outcome === "ended";
    await sleep(Math.min(REOPEN_MS, Math.max(0, deadline - Date.now())), new AbortController().signal);
  }
}
