/**
 * The `jobs` queue consumer. It never runs a tool: it hands each message to
 * the job's chat and acks as soon as the chat has taken it (the call goes on
 * in the chat), so one slow tool cannot hold up the batch (and, under
 * `wrangler dev`, the whole queue). The dead-letter consumer fails jobs the
 * queue gave up on.
 */
import { z } from "zod";
import { chatName } from "../names";
import type { JobMessage } from "../jobs/messages";

export const jobMessageSchema = z.object({
  tenant: z.string().min(1),
  chat_id: z.string().min(1),
  job_id: z.string().min(1),
  attempt: z.number().int().min(1),
});

export async function consumeJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // Each message settles on its own: one failure never makes the runtime redeliver its siblings.
  await Promise.all(batch.messages.map((message) => handOff(message, env)));
}

async function handOff(message: Message<unknown>, env: Env): Promise<void> {
  let body: JobMessage;
  try {
    const parsed = jobMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error("dropping malformed job message", message.id);
      message.ack(); // a poison message would only be redelivered forever
      return;
    }
    body = parsed.data;
  } catch (e) {
    console.warn("unreadable job message; retrying", message.id, (e as Error).message);
    message.retry({ delaySeconds: 1 });
    return;
  }
  try {
    await env.CHAT.getByName(chatName(body.tenant, body.chat_id)).runJob(body.job_id);
    message.ack();
  } catch (e) {
    console.warn("hand-off to the chat failed; retrying", body.job_id, (e as Error).message);
    message.retry({ delaySeconds: 1 });
  }
}

export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = jobMessageSchema.safeParse(message.body);
    if (parsed.success) {
      const { tenant, chat_id, job_id } = parsed.data;
      await env.CHAT.getByName(chatName(tenant, chat_id)).failDispatch(job_id);
    }
    message.ack();
  }
}
