/**
 * The `calls` queue consumer: a Worker runner (docs/architecture.md#where-calls-wait). Each message
 * names up to `CALLS_PER_OBJECT` calls of one chat; the chat claims them for this invocation, which
 * runs them and reports back. The invocation is billed for CPU only while the calls wait, where an
 * object would be billed every second. The message is acked as soon as its calls are claimed:
 * with `queue_consumer_no_wait_for_wait_until` the batch is done then, and the calls go on in
 * `ctx.waitUntil`, so a slow call never holds up the queue (under `wrangler dev`, one batch at a time).
 */
import { chatName } from "../objects/names";
import { CallRunner } from "../runner/call-runner";
import { RENEW_EVERY_MS } from "../runner/lease";
import { readJobsMessage } from "./index";

export async function consumeCalls(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const runner = new CallRunner(env, { waitUntil: (work) => ctx.waitUntil(work), renewEveryMs: RENEW_EVERY_MS });
  await Promise.all(
    batch.messages.map(async (message) => {
      const body = readJobsMessage(message);
      if (!body) return;
      try {
        const calls = await env.CHAT.getByName(chatName(body.tenant, body.chat_id)).claimForRunner(body.jobs.map((j) => j.job_id));
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
