/**
 * The `jobs` queue consumer. It never runs a tool: it hands each chat's
 * messages to that chat in one call and acks them once the chat has taken
 * them (the calls go on in their runners), so one slow
 * tool cannot hold up the batch (and, under `wrangler dev`, the whole queue). Nearly every
 * message is the queue copy of a batch the fast path already started, so one
 * call per chat instead of one per message saves most of the consumer's work.
 * The dead-letter consumer fails jobs the queue gave up on.
 */
import { z } from "zod";
import { chatName } from "../../core/objects/names";
import type { JobsMessage } from "../../core/jobs/messages";

const jobRef = z.object({ job_id: z.string().min(1), attempt: z.number().int().min(1) });

/** A batch's message, or the one-job message of earlier versions (a deploy can leave some queued). */
export const jobsMessageSchema = z.union([
  z.object({ tenant: z.string().min(1), chat_id: z.string().min(1), jobs: z.array(jobRef).min(1) }),
  z
    .object({ tenant: z.string().min(1), chat_id: z.string().min(1), ...jobRef.shape })
    .transform(({ tenant, chat_id, job_id, attempt }) => ({ tenant, chat_id, jobs: [{ job_id, attempt }] })),
]);

export async function consumeJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const byChat = new Map<
    string,
    { tenant: string; chat_id: string; messages: { message: Message<unknown>; body: JobsMessage }[] }
  >();
  for (const message of batch.messages) {
    const body = readJobsMessage(message);
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
        const ids = [...new Set(messages.flatMap((m) => m.body.jobs.map((j) => j.job_id)))];
        const answers = await env.CHAT.getByName(chatName(tenant, chat_id)).takeQueued(ids);
        const retry = new Set(ids.filter((_, i) => answers[i] === "retry"));
        // A message is redelivered whole when any job it names could not start; the others end at their claim then.
        for (const { message, body } of messages) {
          if (body.jobs.some((j) => retry.has(j.job_id))) message.retry({ delaySeconds: 1 });
          else message.ack();
        }
      } catch (e) {
        console.warn("hand-off to the chat failed; retrying", chat_id, (e as Error).message);
        for (const { message } of messages) message.retry({ delaySeconds: 1 });
      }
    }),
  );
}

/**
 * The message's body, or undefined once the message is settled (a poison message is acked, an unreadable one
 * retried).
 */
export function readJobsMessage(message: Message<unknown>): JobsMessage | undefined {
  try {
    const parsed = jobsMessageSchema.safeParse(message.body);
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
    const parsed = jobsMessageSchema.safeParse(message.body);
    if (parsed.success) {
      const { tenant, chat_id, jobs } = parsed.data;
      const chat = env.CHAT.getByName(chatName(tenant, chat_id));
      for (const { job_id } of jobs) await chat.failDispatch(job_id);
    }
    message.ack();
  }
}
