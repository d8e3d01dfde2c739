/**
 * What the bench's own floors (spec-floor, worker-floor) share: the wire shape of a call, one
 * table of jobs, the call of a tool, a chat that answers when its batch has ended. Each floor is its
 * own worker; wrangler bundles this file into both.
 */
import { DurableObject } from "cloudflare:workers";
export interface Call {
  url: string;
  tool_args: Record<string, unknown>;
}
export type Job = { job_id: string; state: string; result: string | null };
export type Outcome = { state: string; result: string };

const createJobs = (sql: SqlStorage) =>
  sql.exec("CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, url TEXT, args TEXT, state TEXT, result TEXT)");

/** Each call's row, pending, under a new id. */
function insertJobs(sql: SqlStorage, calls: Call[]): string[] {
  const ids = calls.map(() => crypto.randomUUID());
  ids.forEach((id, i) => {
    sql.exec(
      "INSERT INTO jobs VALUES(?, ?, ?, 'pending', NULL)",
      id,
      calls[i]!.url,
      JSON.stringify(calls[i]!.tool_args),
    );
  });
  return ids;
}

export async function callTool(url: string, id: string, args: string): Promise<Outcome> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ job_id: id, tool_args: JSON.parse(args) }),
  });
  return { state: r.ok ? "success" : "error", result: await r.text() };
}

function jobsOf(sql: SqlStorage, ids: string[]): Job[] {
  return ids.map((id) => {
    const row = sql
      .exec<{ state: string; result: string | null }>("SELECT state, result FROM jobs WHERE id = ?", id)
      .one();
    return { job_id: id, state: row.state, result: row.result };
  });
}

const ended = (jobs: Job[]) => jobs.every((j) => j.state === "success" || j.state === "error");

/** A floor's chat: writes a batch's rows, has its floor `start` them, and answers once they ended. */
export abstract class FloorChat<Env> extends DurableObject<Env> {
  #waiters: (() => void)[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createJobs(ctx.storage.sql);
  }

  async run(chat: string, calls: Call[], wait: boolean) {
    const ids = insertJobs(this.ctx.storage.sql, calls);
    this.start(chat, ids);
    if (!wait) return { status: "started", jobs: ids.map((job_id) => ({ job_id })) };
    while (!ended(jobsOf(this.ctx.storage.sql, ids))) await new Promise<void>((r) => this.#waiters.push(r));
    return { status: "success", jobs: jobsOf(this.ctx.storage.sql, ids) };
  }

  /** Sets the batch's calls going (beside the answer). */
  protected abstract start(chat: string, ids: string[]): void;

  /** Claims a pending job: its call may leave. */
  protected claim(id: string) {
    return this.ctx.storage.sql
      .exec<{ url: string; args: string }>(
        "UPDATE jobs SET state = 'running' WHERE id = ? AND state = 'pending' RETURNING url, args",
        id,
      )
      .toArray()
      .map((r) => ({ id, ...r }))[0];
  }

  report(id: string, o: Outcome) {
    this.ctx.storage.sql.exec("UPDATE jobs SET state = ?, result = ? WHERE id = ?", o.state, o.result, id);
    for (const w of this.#waiters.splice(0)) w();
  }
}

/** `POST /chats/{chat}/run`, as the platform floor answers it. */
export async function routeRun(
  req: Request,
  run: (chat: string, calls: Call[], wait: boolean) => Promise<unknown>,
): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/healthz") return new Response("ok");
  const m = /^\/chats\/([^/]+)\/run$/.exec(url.pathname);
  if (!m || req.method !== "POST") return new Response("not found", { status: 404 });
  const body = (await req.json()) as { calls: Call[]; wait?: boolean };
  return Response.json(await run(m[1]!, body.calls, body.wait !== false));
}
