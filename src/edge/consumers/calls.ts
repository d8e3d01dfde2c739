/**
 * The `calls` queue consumer: the `queue` host of calls (docs/architecture.md#where-a-call-runs). Each message
 * names up to `CALLS_PER_OBJECT` calls of one chat, or a child chat's model request
 * (docs/architecture.md#model-requests); the chat claims them for this invocation, which runs them
 * and reports back. The invocation is billed for CPU only while the calls wait, where an
 * object would be billed every second. The message is acked as soon as its calls are claimed:
 * with `queue_consumer_no_wait_for_wait_until` the batch is done then, and the calls go on in
 * `ctx.waitUntil`, so a slow call never holds up the queue (under `wrangler dev`, one batch at a time).
 */
import { z } from "zod";
import type { ModelAskMessage } from "../../core/jobs/messages";
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

export async function consumeCalls(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const runner = new CallRunner(env, (work) => ctx.waitUntil(work));
  await Promise.all(
    batch.messages.map(async (message) => {
      const ask = modelAskMessageSchema.safeParse(message.body);
      if (ask.success) return takeAsk(ask.data, message, env, ctx);
      const body = readJobsMessage(message);
      if (!body) return;
      try {
        const calls = await env.CHAT.getByName(chatName(body.tenant, body.chat_id)).claimForRunner(
          body.jobs.map((j) => j.job_id),
        );
        runner.run(calls);
        message.ack();
      } catch (e) {
        // Nothing was claimed, or the claims are recovered by the heartbeat once their leases lapse unrenewed.
        console.warn("taking calls from the chat failed; retrying", body.chat_id, (e as Error).message);
        message.retry({ delaySeconds: 1 });
      }
    }),
  );
}

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
