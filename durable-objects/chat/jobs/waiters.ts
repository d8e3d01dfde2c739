/**
 * Requests waiting on jobs (docs/architecture.md#awaits). A Durable Object is billed for every
 * second it handles a request, so a waiting request does not wait in the chat: the worker holds
 * it, with a hibernatable WebSocket to the chat, and the chat sends one message on that socket
 * when the jobs it named have all ended; the worker then asks for the answer. Between those, the
 * chat can hibernate like any idle object. Completion still wakes the request at once, with no
 * polling (docs/api.md#waiting-and-collecting).
 *
 * Every wait goes this way, however short: a brief one kept in the chat would cost it the time of
 * waiting and, for the calls that outlast it (most real tool calls), the socket's requests too.
 *
 * A waiter keeps, on its socket, the ids it still waits for and drops each as the job machine
 * reports its end, so the jobs' rows are read once when the wait starts and once more when the
 * last one ends, not on every end in the chat. That last read confirms what the socket says: an
 * end whose transaction was rolled back did not happen.
 *
 * A `parallel` or `spawn` request asks for its answer on the socket (`?answer=<max_result_chars>`): the wake
 * carries it, read once the work that ended the last job is over, and the worker answers without asking again.
 */
import { JOB_PROGRESSED, JOBS_ENDED } from "../../../src/core/jobs/messages";
import type { Progress } from "../../../src/core/jobs/progress";

/** The tag of a waiting request's socket (a live stream's sockets have their own). */
export const AWAIT_TAG = "await";

/** What a waiter needs of its socket: the hibernation API's attachment, and a send. */
export interface WaitingSocket {
  send(message: string): void;
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

/**
 * `answer`: the `max_result_chars` of the answer the wake carries; without it, the wake says only `ended`.
 * `progress`: the request hears its jobs' MCP progress as it comes (an MCP client's call).
 */
type Waiting = { ids: string[]; remaining: string[]; answer?: number; progress?: true } | { ended: true };

/** The answer a wake carries (`batch-answer.ts`), or undefined to have the worker ask for it. */
export type WakeAnswer = (jobIds: string[], maxResultChars: number) => string | undefined;

/** A request's socket, accepted for hibernation and told at once if its jobs have ended already. */
export function acceptWaiter(ctx: DurableObjectState, waiters: Waiters, url: URL): Response {
  const { 0: client, 1: server } = new WebSocketPair();
  ctx.acceptWebSocket(server, [AWAIT_TAG]);
  const answer = Number(url.searchParams.get("answer") ?? Number.NaN);
  waiters.wait(
    server,
    url.searchParams.getAll("job_id"),
    Number.isSafeInteger(answer) ? answer : undefined,
    url.searchParams.get("progress") === "1",
  );
  return new Response(null, { status: 101, webSocket: client });
}

export class Waiters {
  constructor(
    /** The sockets of the requests waiting now (hibernated or not). */
    private readonly sockets: () => WaitingSocket[],
    /** Which of these jobs are active, read from storage; jobs it does not know count as ended. */
    private readonly stillActive: (jobIds: string[]) => string[],
    private readonly answerOf: WakeAnswer = () => undefined,
  ) {}

  /**
   * A request starts waiting on `jobIds` over `socket`: told at once when none is active any more, with its
   * answer when it asks for one (`answer`: its `max_result_chars`).
   */
  wait(socket: WaitingSocket, jobIds: string[], answer?: number, progress = false): void {
    const waiting = {
      ids: jobIds,
      remaining: this.stillActive(jobIds),
      ...(answer === undefined ? {} : { answer }),
      ...(progress ? { progress: true as const } : {}),
    };
    if (waiting.remaining.length === 0) this.#wake(socket, waiting);
    else socket.serializeAttachment(waiting satisfies Waiting);
  }

  /** Called after a job ended (`JobMachine.finish`, the one way into a terminal state). */
  ended(jobId: string): void {
    for (const socket of this.sockets()) {
      const waiting = socket.deserializeAttachment() as Waiting | null;
      if (!waiting || "ended" in waiting || !waiting.remaining.includes(jobId)) continue;
      const remaining = waiting.remaining.filter((id) => id !== jobId);
      const active = remaining.length > 0 ? remaining : this.stillActive(waiting.ids);
      if (active.length === 0) this.#wake(socket, waiting);
      else socket.serializeAttachment({ ...waiting, remaining: active } satisfies Waiting);
    }
  }

  /** A job's MCP progress was kept (at most once a second): the requests that asked hear it. */
  progressed(jobId: string, progress: Progress): void {
    for (const socket of this.sockets()) {
      const waiting = socket.deserializeAttachment() as Waiting | null;
      if (!waiting || "ended" in waiting || !waiting.progress || !waiting.remaining.includes(jobId)) continue;
      send(socket, `${JOB_PROGRESSED}${JSON.stringify({ job_id: jobId, ...progress })}`);
    }
  }

  #wake(socket: WaitingSocket, waiting: { ids: string[]; answer?: number }): void {
    socket.serializeAttachment({ ended: true } satisfies Waiting);
    const { answer } = waiting;
    if (answer === undefined) {
      send(socket, JOBS_ENDED);
      return;
    }
    // Read once the work that ended the last job is over (a transaction has committed or rolled back): what a
    // rolled-back end left active goes on waiting, and the answer holds only what was stored.
    queueMicrotask(() => {
      let text: string | undefined;
      try {
        const active = this.stillActive(waiting.ids);
        if (active.length > 0) {
          socket.serializeAttachment({ ...waiting, remaining: active } satisfies Waiting);
          return;
        }
        text = this.answerOf(waiting.ids, answer);
      } catch (e) {
        console.warn("a wake's answer could not be read; the worker asks for it", (e as Error).message);
      }
      send(socket, text ?? JOBS_ENDED);
    });
  }
}

function send(socket: WaitingSocket, message: string): void {
  try {
    socket.send(message);
  } catch {
    // The request is gone (its client left): nobody waits for the answer.
  }
}
