/**
 * The contract floor (see wrangler.toml): per job one row written before the answer, one queue
 * message, one invocation of the chat that claims the row and makes the call, one write of
 * the outcome. Same wire shape as the platform floor (`POST /chats/{chat}/run`).
 */
import { DurableObject } from "cloudflare:workers";

interface Env {
  CHAT: DurableObjectNamespace<SpecFloorChat>;
  JOBS: Queue<{ chat: string; id: string }>;
}
interface Call {
  url: string;
  tool_args: Record<string, unknown>;
}
type Job = { job_id: string; state: string; result: string | null };

export class SpecFloorChat extends DurableObject<Env> {
  #waiters: (() => void)[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, url TEXT, args TEXT, state TEXT, result TEXT)");
  }

  async run(chat: string, calls: Call[], wait: boolean) {
    const ids = calls.map(() => crypto.randomUUID());
    ids.forEach((id, i) => this.ctx.storage.sql.exec("INSERT INTO jobs VALUES(?, ?, ?, 'pending', NULL)", id, calls[i]!.url, JSON.stringify(calls[i]!.tool_args)));
    const dispatch = async () => {
      await this.env.JOBS.sendBatch(ids.map((id) => ({ body: { chat, id } })));
      const self = this.env.CHAT.get(this.ctx.id);
      await Promise.all(ids.map((id) => self.runJob(id)));
    };
    this.ctx.waitUntil(dispatch());
    if (!wait) return { status: "started", jobs: ids.map((job_id) => ({ job_id })) };
    while (this.#jobs(ids).some((j) => j.state !== "success" && j.state !== "error")) await new Promise<void>((r) => this.#waiters.push(r));
    return { status: "success", jobs: this.#jobs(ids) };
  }

  /** One invocation per call: claim, call, record. A queue copy finds the job taken. */
  async runJob(id: string) {
    const claimed = this.ctx.storage.sql.exec<{ url: string; args: string }>("UPDATE jobs SET state = 'running' WHERE id = ? AND state = 'pending' RETURNING url, args", id).toArray()[0];
    if (!claimed) return "duplicate";
    this.ctx.waitUntil(
      (async () => {
        const r = await fetch(claimed.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ job_id: id, tool_args: JSON.parse(claimed.args) }) });
        const text = await r.text();
        this.ctx.storage.sql.exec("UPDATE jobs SET state = ?, result = ? WHERE id = ?", r.ok ? "success" : "error", text, id);
        this.#waiters.splice(0).forEach((w) => w());
      })(),
    );
    return "started";
  }

  #jobs(ids: string[]): Job[] {
    return ids.map((id) => {
      const row = this.ctx.storage.sql.exec<{ state: string; result: string | null }>("SELECT state, result FROM jobs WHERE id = ?", id).one();
      return { job_id: id, state: row.state, result: row.result };
    });
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
  async queue(batch: MessageBatch<{ chat: string; id: string }>, env: Env) {
    await Promise.all(batch.messages.map(async (m) => (await env.CHAT.getByName(m.body.chat).runJob(m.body.id), m.ack())));
  },
} satisfies ExportedHandler<Env>;
