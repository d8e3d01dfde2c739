/**
 * The `calls` queue consumer: the `queue` host of calls (docs/architecture.md#where-a-call-runs). Each message
 * names up to `CALLS_PER_OBJECT` calls of one chat, or a child chat's model request
 * (docs/architecture.md#model-requests); the chat claims them for this invocation, which runs them
 * and reports back. The invocation is billed for CPU only while the calls wait, where an
 * object would be billed every second. With `queue_consumer_no_wait_for_wait_until` the batch is
 * done when the handler returns, and the claim and the calls go on in `ctx.waitUntil`.
 *
 * A calls message is acked before its calls are claimed: under `wrangler dev` a queue delivers one
 * batch at a time, and a handler that waited for the claim's round trip to the chat would hold every
 * other chat's calls behind it (a backlog of seconds under load). A claim that fails sends the
 * message again, at most `RESENDS` times; past that, or if the send fails too, the chat's dispatch
 * watchdog sends the calls again, as it does for a lost message.
 */
import { z } from "zod";
import type { JobsMessage, ModelAskMessage } from "../../core/jobs/messages";
import { chatName } from "../../core/objects/names";
import { CallRunner } from "../../core/runner/call-runner";
import { takeModelAsk } from "../../core/runner/model-runner";
import { readJobsMessage } from "./index";

/** A child chat's model request (docs/architecture.md#model-requests): its turn and the lease of its ask. */
const modelAskMessageSchema = z.object({
  tenant: z.string().min(1),
  chat_id: z.string().min(1),
  ask: z.object({ turn_id: z.string().min(1), lease: z.string().min(1) }),
});

/** Sends of a calls message again after failed claims, before the chat's dispatch watchdog is left to it. */
export const RESENDS = 4;

export async function consumeCalls(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const runner = new CallRunner(env, (work) => ctx.waitUntil(work));
  await Promise.all(
    batch.messages.map(async (message) => {
      const ask = modelAskMessageSchema.safeParse(message.body);
      if (ask.success) return takeAsk(ask.data, message, env, ctx);
      const body = readJobsMessage(message);
      if (!body) return;
      message.ack();
      ctx.waitUntil(takeCalls(body, resendsOf(message.body), runner, env));
    }),
  );
}

/** Claims the message's calls and runs them; a failed claim sends the message again a second later. */
async function takeCalls(body: JobsMessage, resends: number, runner: CallRunner, env: Env): Promise<void> {
  try {
    runner.run(
      await env.CHAT.getByName(chatName(body.tenant, body.chat_id)).claimForRunner(body.jobs.map((j) => j.job_id)),
    );
  } catch (e) {
    // Nothing was claimed, or the claims are recovered by the heartbeat once their leases lapse unrenewed.
    const again = resends < RESENDS;
    console.warn(
      `taking calls from the chat failed; ${again ? "sending them again" : "the chat's watchdog sends them again"}`,
      body.chat_id,
      (e as Error).message,
    );
    if (!again) return;
    await env.CALLS.send({ ...body, resends: resends + 1 }, { delaySeconds: 1 }).catch((sent: Error) =>
      console.warn("sending calls again failed; the chat's watchdog sends them again", body.chat_id, sent.message),
    );
  }
}

const resendsOf = (body: unknown): number => {
  const n = (body as { resends?: unknown }).resends;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : 0;
};

async function takeAsk(
  body: ModelAskMessage,
  message: Message<unknown>,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  try {
    await takeModelAsk(env, body, (work) => ctx.waitUntil(work));
    message.ack();
  } catch (e) {
    // Not claimed, or claimed and left to lapse: either way the chat asks again if this one never runs.
    console.warn("taking a model request from the chat failed; retrying", body.chat_id, (e as Error).message);
    message.retry({ delaySeconds: 1 });
  }
}
