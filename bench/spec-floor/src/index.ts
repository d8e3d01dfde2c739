/**
 * The contract floor, v1.2 (see wrangler.toml): per job one row written before the answer and
 * claimed before its call leaves; at most 4 calls from the chat, the rest handed 4 at a time to
 * lane objects that report each outcome back; one queue message per batch, sent once the calls
 * started; one write of each outcome. Same wire shape as the platform floor (`POST /chats/{chat}/run`).
 */
import { DurableObject } from "cloudflare:workers";

interface Env {
  CHAT: DurableObjectNamespace<SpecFloorChat>;
  LANE: DurableObjectNamespace<SpecFloorLane>;
  JOBS: Queue<{ chat: string; ids: string[] }>;
}
interface Call {
  url: string;
  tool_args: Record<string, unknown>;
}
type Job = { job_id: string; state: string; result: string | null };
type Outcome = { state: string; result: string };

const PER_OBJECT = 4;

async function callTool(url: string, id: string, args: string): Promise<Outcome> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ job_id: id, tool_args: JSON.parse(args) }) });
  return { state: r.ok ? "success" : "error", result: await r.text() };
}

export class SpecFloorChat extends DurableObject<Env> {
  #waiters: (() => void)[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, url TEXT, args TEXT, state TEXT, result TEXT)");
  }

  async run(chat: string, calls: Call[], wait: boolean) {
    const ids = calls.map(() => crypto.randomUUID());
    ids.forEach((id, i) => this.ctx.storage.sql.exec("INSERT INTO jobs VALUES(?, ?, ?, 'pending', NULL)", id, calls[i]!.url, JSON.stringify(calls[i]!.tool_args)));
    this.ctx.waitUntil(this.#start(chat, ids).then(() => this.env.JOBS.send({ chat, ids })));
    if (!wait) return { status: "started", jobs: ids.map((job_id) => ({ job_id })) };
    while (this.#jobs(ids).some((j) => j.state !== "success" && j.state !== "error")) await new Promise<void>((r) => this.#waiters.push(r));
    return { status: "success", jobs: this.#jobs(ids) };
  }

  /** Claims every pending job: the first 4 are called from here, the rest go to lanes, 4 each. */
  async #start(chat: string, ids: string[]) {
    const claimed = ids.map((id) => this.#claim(id)).filter((c) => c !== undefined);
    const lanes: (typeof claimed)[] = [];
    for (let i = PER_OBJECT; i < claimed.length; i += PER_OBJECT) lanes.push(claimed.slice(i, i + PER_OBJECT));
    for (const c of claimed.slice(0, PER_OBJECT)) this.ctx.waitUntil(callTool(c.url, c.id, c.args).then((o) => this.report(c.id, o)));
    await Promise.all(lanes.map((group, n) => this.env.LANE.getByName(`${chat}/${n}`).run(chat, group)));
  }

  #claim(id: string) {
    return this.ctx.storage.sql.exec<{ url: string; args: string }>("UPDATE jobs SET state = 'running' WHERE id = ? AND state = 'pending' RETURNING url, args", id).toArray().map((r) => ({ id, ...r }))[0];
  }

  report(id: string, o: Outcome) {
    this.ctx.storage.sql.exec("UPDATE jobs SET state = ?, result = ? WHERE id = ?", o.state, o.result, id);
    this.#waiters.splice(0).forEach((w) => w());
  }

  /** The queue copy: anything still pending starts now (normally nothing is). */
  async takeQueued(chat: string, ids: string[]) {
    await this.#start(chat, ids);
  }

  #jobs(ids: string[]): Job[] {
    return ids.map((id) => {
      const row = this.ctx.storage.sql.exec<{ state: string; result: string | null }>("SELECT state, result FROM jobs WHERE id = ?", id).one();
      return { job_id: id, state: row.state, result: row.result };
    });
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
  async fetch(req: Request, env: Env): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const m = /^\/chats\/([^/]+)\/run$/.exec(url.pathname);
    if (!m || req.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await req.json()) as { calls: Call[]; wait?: boolean };
    return Response.json(await env.CHAT.getByName(m[1]!).run(m[1]!, body.calls, body.wait !== false));
  },
  async queue(batch: MessageBatch<{ chat: string; ids: string[] }>, env: Env) {
    await Promise.all(batch.messages.map(async (m) => (await env.CHAT.getByName(m.body.chat).takeQueued(m.body.chat, m.body.ids), m.ack())));
  },
} satisfies ExportedHandler<Env>;
