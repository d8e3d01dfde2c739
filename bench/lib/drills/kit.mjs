/**
 * What every fault drill of `npm run drill` shares: requests to the fanout
 * under test (the restart drill replaces it mid-run, so each request reads the
 * current one from the context), awaiting jobs until they end, batches built
 * to exercise retries and deadlines on the tool server's tools, and the
 * PASS/FAIL report whose failures decide the run.
 */
import { BENCH_KEY } from "../services.mjs";

export const TERMINAL = new Set(["success", "error", "cancelled", "timeout"]);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const auth = { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" };

/** `fanout` and `tools` as started; `fanout` is replaced when a drill restarts it. */
export function drillContext({ fanout, tools }) {
  const ctx = { fanout, tools, failures: [] };
  ctx.report = (name, counts, ok) => {
    console.log(
      `${ok ? "PASS" : "FAIL"}  ${name}: ${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
    if (!ok) ctx.failures.push(name);
  };

  async function call(path, body, headers = auth, method) {
    const res = await fetch(`${ctx.fanout.url}${path}`, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json };
  }

  /**
   * Starts `n` batches of three jobs on chats `<prefix>-<i>`: a read-only call and a side-effecting
   * call of `ms`, and a call of `longMs` that must outlive its `jobTimeout` deadline.
   */
  async function startFaultBatches(prefix, n, { ms, longMs, jobTimeout }) {
    const batches = [];
    for (let i = 0; i < n; i++) {
      const chatId = `${prefix}-${i}`;
      const res = await call(`/v1/chats/${chatId}/parallel`, {
        tool_calls: [
          { tool_name: "slow", tool_args: { ms } },
          { tool_name: "slow_write", tool_args: { ms } },
          { tool_name: "slow", tool_args: { ms: longMs } },
        ],
        wait: false,
        job_timeout: jobTimeout,
      });
      if (res.status !== 200) throw new Error(`batch ${chatId}: ${res.status} ${JSON.stringify(res.json)}`);
      batches.push({ chatId, ids: res.json.jobs.map((j) => j.job_id) });
    }
    return batches;
  }

  /** Awaits jobs until every one is terminal (or the time is up); returns their final snapshots. */
  async function settle(chatId, ids, ms = 150_000) {
    const end = Date.now() + ms;
    let jobs = [];
    while (Date.now() < end) {
      const res = await call(`/v1/chats/${chatId}/parallel`, { action: "await", job_ids: ids, timeout: 30 });
      if (res.status === 200) {
        jobs = res.json.jobs;
        if (jobs.every((j) => TERMINAL.has(j.state))) return jobs;
      } else await sleep(500);
    }
    return jobs;
  }

  const tool = (name, path, readOnly) => ({
    name,
    description: name,
    url: `${ctx.tools.url}${path}`,
    read_only: readOnly,
    parameters: { type: "object" },
  });
  const configure = () =>
    call(
      "/v1/config",
      {
        tools: [tool("slow", "/slow", true), tool("slow_write", "/slow", false), tool("noop", "/noop", true)],
        limits: { max_wait_seconds: 95 },
      },
      auth,
      "PUT",
    );

  return Object.assign(ctx, { call, startFaultBatches, settle, configure });
}
