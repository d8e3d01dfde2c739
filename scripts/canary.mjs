#!/usr/bin/env node
/**
 * `npm run canary -- --url <fanout> --key <key> --tool-url <endpoint that holds its answer>`:
 * measures the connection budget on a real deployment (docs/operations.md#the-connection-canary).
 * Local `wrangler dev` enforces no limit on the calls an object has waiting, so only a deployed
 * fanout can show whether production lets a chat's calls all run at once.
 *
 * It adds one tool to the tenant's configuration (kept secrets stay as they are), starts 12 calls of
 * it in one chat, each held by the endpoint for `--hold` seconds, and reads when each finished: calls
 * that had to wait for a connection finish a whole hold later than the first. Then it puts the
 * tenant's tools back as they were. Exit code 0 when every call ran at once, 1 when fewer did.
 */
import { parseArgs } from "node:util";

export const CANARY_TOOL = "fanout_canary_hold";

/**
 * How many calls ran at once, from when each finished: the endpoint holds every call `holdMs` from
 * its arrival, so a call that waited for a connection finishes at least one hold after the first.
 */
export function concurrencyReached(completedAtMs, holdMs) {
  if (completedAtMs.length === 0) return 0;
  const first = Math.min(...completedAtMs);
  return completedAtMs.filter((t) => t < first + holdMs / 2).length;
}

async function api(base, key, method, path, body, contentType = "application/json") {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": contentType }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Runs the canary; `log` gets progress lines. The tenant's tools are put back whatever happens. */
export async function runCanary({ url, key, toolUrl, calls = 12, holdSeconds = 20, log = () => {} }) {
  const base = url.replace(/\/+$/, "");
  const patch = (changes) => api(base, key, "PATCH", "/v1/config", changes, "application/merge-patch+json");
  const config = await api(base, key, "GET", "/v1/config");
  // Secrets come back as "***", which keeps each stored secret (matched by tool name).
  const before = { tools: config.tools, limits: { max_calls: config.limits.max_calls } };
  const hold = {
    name: CANARY_TOOL,
    description: "fanout canary: holds its answer",
    url: toolUrl,
    read_only: true,
    timeout_seconds: holdSeconds * 3,
    parameters: { type: "object" },
  };
  await patch({
    tools: [...config.tools.filter((t) => t.name !== CANARY_TOOL), hold],
    limits: { max_calls: Math.max(calls, config.limits.max_calls) },
  });
  try {
    const chat = `canary-${Date.now()}`;
    log(`starting ${calls} calls held ${holdSeconds} s each in chat ${chat}…`);
    const t0 = Date.now();
    const tool_calls = Array.from({ length: calls }, (_, i) => ({
      tool_name: CANARY_TOOL,
      tool_args: { n: i, seconds: holdSeconds },
    }));
    const wait = Math.min(config.limits.max_wait_seconds, holdSeconds * 3);
    let answer = await api(base, key, "POST", `/v1/chats/${chat}/parallel`, { tool_calls, timeout: wait });
    const ids = answer.jobs.map((j) => j.job_id);
    while (answer.status === "waiting" || answer.status === "running") {
      answer = await api(base, key, "POST", `/v1/chats/${chat}/parallel`, {
        action: "await",
        job_ids: ids,
        timeout: wait,
      });
    }
    const records = await Promise.all(ids.map((id) => api(base, key, "GET", `/v1/chats/${chat}/jobs/${id}`)));
    const failed = records.filter((r) => r.state !== "success");
    const completed = records.filter((r) => r.completed_at).map((r) => Date.parse(r.completed_at));
    return {
      chat,
      calls,
      holdSeconds,
      concurrency: concurrencyReached(completed, holdSeconds * 1000),
      seconds: (Date.now() - t0) / 1000,
      failed: failed.map((r) => `${r.job_id}: ${r.state}${r.error ? ` (${r.error})` : ""}`),
    };
  } finally {
    await patch(before);
  }
}

export function report(r) {
  const lines = [
    `${r.concurrency} of ${r.calls} calls ran at once (each held ${r.holdSeconds} s; the batch took ${r.seconds.toFixed(1)} s).`,
  ];
  if (r.failed.length) lines.push(`${r.failed.length} calls did not succeed: ${r.failed.join("; ")}`);
  lines.push(
    r.concurrency >= r.calls && !r.failed.length
      ? "The connection budget holds: every call of one chat ran at the same time."
      : "Fewer calls ran at once than were started: see docs/operations.md#the-connection-canary for what to change.",
  );
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      key: { type: "string" },
      "tool-url": { type: "string" },
      calls: { type: "string", default: "12" },
      hold: { type: "string", default: "20" },
    },
  });
  if (!values.url || !values.key || !values["tool-url"]) {
    console.error(
      "usage: npm run canary -- --url <deployed fanout> --key <API key> --tool-url <endpoint that holds each request> [--hold 20] [--calls 12]",
    );
    process.exit(2);
  }
  try {
    const r = await runCanary({
      url: values.url,
      key: values.key,
      toolUrl: values["tool-url"],
      calls: Number(values.calls),
      holdSeconds: Number(values.hold),
      log: (l) => console.log(l),
    });
    console.log(report(r));
    process.exit(r.concurrency >= r.calls && !r.failed.length ? 0 : 1);
  } catch (e) {
    console.error(`canary failed: ${e.message}`);
    process.exit(2);
  }
}
