/**
 * The `jobs` queue consumer. It never runs a tool: it hands each chat's
 * messages to that chat in one call and acks them once the chat has taken
 * them (a call goes on in the chat, in an invocation of its own), so one slow
 * tool cannot hold up the batch (and, under `wrangler dev`, the whole queue).
 * Nearly every message is the queue copy of a job the fast path already
 * started, so one call per chat instead of one per message saves most of the
 * consumer's work. The dead-letter consumer fails jobs the queue gave up on.
 */
import { z } from "zod";
import { chatName } from "../objects/names";
import type { JobMessage } from "../jobs/messages";

export const jobMessageSchema = z.object({
  tenant: z.string().min(1),
  chat_id: z.string().min(1),
  job_id: z.string().min(1),
  attempt: z.number().int().min(1),
});

export async function consumeJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const byChat = new Map<string, { tenant: string; chat_id: string; messages: { message: Message<unknown>; body: JobMessage }[] }>();
  for (const message of batch.messages) {
    const body = readMessage(message);
    if (!body) continue;
    const key = chatName(body.tenant, body.chat_id);
    const group = byChat.get(key) ?? { tenant: body.tenant, chat_id: body.chat_id, messages: [] };
    group.messages.push({ message, body });
    byChat.set(key, group);
  }
  // Each chat's messages settle on their own: one failing chat never makes the runtime redeliver the others.
  await Promise.all(
    [...byChat.values()].map(async ({ tenant, chat_id, messages }) => {
      try {
        const answers = await env.CHAT.getByName(chatName(tenant, chat_id)).takeQueued(messages.map((m) => m.body.job_id));
        messages.forEach(({ message }, i) => (answers[i] === "retry" ? message.retry({ delaySeconds: 1 }) : message.ack()));
      } catch (e) {
        console.warn("hand-off to the chat failed; retrying", chat_id, (e as Error).message);
        for (const { message } of messages) message.retry({ delaySeconds: 1 });
      }
    }),
  );
}

/** The message's body, or undefined once the message is settled (a poison message is acked, an unreadable one retried). */
function readMessage(message: Message<unknown>): JobMessage | undefined {
  try {
    const parsed = jobMessageSchema.safeParse(message.body);
    if (parsed.success) return parsed.data;
    console.error("dropping malformed job message", message.id);
    message.ack(); // a poison message would only be redelivered forever
  } catch (e) {
    console.warn("unreadable job message; retrying", message.id, (e as Error).message);
    message.retry({ delaySeconds: 1 });
  }
  return undefined;
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
