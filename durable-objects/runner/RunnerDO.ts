/**
 * What is left of the runner objects, which ran jobs before jobs moved into
 * their chats (schema v8). A runner still holding a job at the upgrade wakes
 * on its heartbeat alarm and hands each job back to its chat: an outcome it
 * kept is reported, anything else is taken by the chat, which recovers the
 * call by the SPEC §4 attempt rules. Then it empties itself. No new job ever
 * reaches a runner; delete this class (a `deleted_classes` migration) in a
 * later release, once every runner has drained.
 */
import { DurableObject } from "cloudflare:workers";
import type { JobOutcome } from "../../src/jobs/messages";
import { chatName } from "../../src/names";

/** The parts of an old runner record the hand-back needs. */
interface LegacyRecord {
  message: { tenant: string; chat_id: string; job_id: string };
  claim: { lease: string } | null;
  outcome?: JobOutcome;
}

const RETRY_MS = 10_000;

export class RunnerDO extends DurableObject<Env> {
  override async alarm(): Promise<void> {
    const records = [...this.ctx.storage.kv.list<LegacyRecord>()].map(([, record]) => record).filter((r) => r?.message?.job_id);
    try {
      for (const { message, claim, outcome } of records) {
        const chat = this.env.CHAT.getByName(chatName(message.tenant, message.chat_id));
        if (outcome && claim) await chat.completeJob(message.job_id, claim.lease, outcome);
        else await chat.takeQueued([message.job_id]);
      }
    } catch (e) {
      console.warn("handing a runner's jobs back failed; retrying", (e as Error).message);
      await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
      return;
    }
    await this.ctx.storage.deleteAll();
  }
}
