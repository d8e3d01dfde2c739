/**
 * The Worker-run floor, v1.3 (see wrangler.toml): per job one row written before the answer and
 * claimed before its call leaves; the calls sent to the queue 4 to a message as soon as the rows
 * are written, each message's consumer claiming them in the chat, calling the tools from its own
 * invocation and reporting each outcome back; one write of each outcome. Same wire shape as the
 * platform floor (`POST /chats/{chat}/run`).
 */
import { callTool, FloorChat, routeRun } from "../../floor-parts/jobs";

interface Env {
  CHAT: DurableObjectNamespace<WorkerFloorChat>;
  CALLS: Queue<{ chat: string; ids: string[] }>;
}

const PER_INVOCATION = 4;

/**
 * `npm run bench` measures what slower queue sends cost: in chats named `slowq-…` every send takes
 * 60 ms longer (Cloudflare's published median for a send), as in fanout's bench/queue-delay build.
 */
const slowSend = (chat: string) =>
  chat.startsWith("slowq-") ? new Promise<void>((r) => setTimeout(r, 60)) : Promise.resolve();

export class WorkerFloorChat extends FloorChat<Env> {
  /** The calls go to the queue 4 to a message, unclaimed: each message's consumer claims its own. */
  protected start(chat: string, ids: string[]) {
    const groups: string[][] = [];
    for (let i = 0; i < ids.length; i += PER_INVOCATION) groups.push(ids.slice(i, i + PER_INVOCATION));
    this.ctx.waitUntil(
      slowSend(chat).then(() => this.env.CALLS.sendBatch(groups.map((group) => ({ body: { chat, ids: group } })))),
    );
  }

  /** A consumer takes its message's calls: each claimed once. */
  take(ids: string[]) {
    return ids.flatMap((id) => this.claim(id) ?? []);
  }
}

export default {
  fetch: (req: Request, env: Env) =>
    routeRun(req, (chat, calls, wait) => env.CHAT.getByName(chat).run(chat, calls, wait)),
  // Acked once claimed: the calls go on in this invocation's waitUntil, billed for CPU only.
  async queue(batch: MessageBatch<{ chat: string; ids: string[] }>, env: Env, ctx: ExecutionContext) {
    await Promise.all(
      batch.messages.map(async (m) => {
        const chat = env.CHAT.getByName(m.body.chat);
        for (const c of await chat.take(m.body.ids))
          ctx.waitUntil(callTool(c.url, c.id, c.args).then((o) => chat.report(c.id, o)));
        m.ack();
      }),
    );
  },
} satisfies ExportedHandler<Env>;
