/**
 * The contract floor, v1.2 (see wrangler.toml): per job one row written before the answer and
 * claimed before its call leaves; at most 4 calls from the chat, the rest handed 4 at a time to
 * lane objects that report each outcome back; one queue message per batch, sent once the calls
 * started; one write of each outcome. Same wire shape as the platform floor (`POST /chats/{chat}/run`).
 */
import { DurableObject } from "cloudflare:workers";
import { callTool, FloorChat, routeRun } from "../../floor-parts/jobs";

interface Env {
  CHAT: DurableObjectNamespace<SpecFloorChat>;
  LANE: DurableObjectNamespace<SpecFloorLane>;
  JOBS: Queue<{ chat: string; ids: string[] }>;
}

const PER_OBJECT = 4;

export class SpecFloorChat extends FloorChat<Env> {
  protected start(chat: string, ids: string[]) {
    this.ctx.waitUntil(this.#start(chat, ids).then(() => this.env.JOBS.send({ chat, ids })));
  }

  /** Claims every pending job: the first 4 are called from here, the rest go to lanes, 4 each. */
  async #start(chat: string, ids: string[]) {
    const claimed = ids.map((id) => this.claim(id)).filter((c) => c !== undefined);
    const lanes: (typeof claimed)[] = [];
    for (let i = PER_OBJECT; i < claimed.length; i += PER_OBJECT) lanes.push(claimed.slice(i, i + PER_OBJECT));
    for (const c of claimed.slice(0, PER_OBJECT))
      this.ctx.waitUntil(callTool(c.url, c.id, c.args).then((o) => this.report(c.id, o)));
    await Promise.all(lanes.map((group, n) => this.env.LANE.getByName(`${chat}/${n}`).run(chat, group)));
  }

  /** The queue copy: anything still pending starts now (normally nothing is). */
  async takeQueued(chat: string, ids: string[]) {
    await this.#start(chat, ids);
  }
}

/** A call lane: runs what it is handed and reports each outcome to its chat. */
export class SpecFloorLane extends DurableObject<Env> {
  run(chat: string, calls: { id: string; url: string; args: string }[]) {
    const stub = this.env.CHAT.getByName(chat);
    for (const c of calls) this.ctx.waitUntil(callTool(c.url, c.id, c.args).then((o) => stub.report(c.id, o)));
  }
}

export default {
  fetch: (req: Request, env: Env) =>
    routeRun(req, (chat, calls, wait) => env.CHAT.getByName(chat).run(chat, calls, wait)),
  async queue(batch: MessageBatch<{ chat: string; ids: string[] }>, env: Env) {
    await Promise.all(
      batch.messages.map(
        async (m) => (await env.CHAT.getByName(m.body.chat).takeQueued(m.body.chat, m.body.ids), m.ack()),
      ),
    );
  },
} satisfies ExportedHandler<Env>;
