/**
 * Drill: the round-3 red team's attacks, each from one tenant while the other tenant's
 * `/parallel` is timed (docs/security.md): fixed-count patterns against 10,000 characters, a
 * 20,000-tool MCP listing, calls named with 250,000 characters, 300 streams, 600 small batches.
 * It passes when nothing answers 5xx, nothing a refused request sent is stored, and the other
 * tenant's p50 stays within 2× its quiet p50 (plus 5 ms, the noise of one local process).
 * `node bench/neighbours.mjs <url>` runs it against a fanout already running (an older build, for
 * before-and-after figures); `npm run drill` against one it starts with the default limits.
 */
import { createServer } from "node:http";
import { percentile } from "../stats.mjs";
import { BENCH_KEY, OTHER_KEY } from "../services.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A Streamable HTTP MCP server that lists `tools` made-up tools in one page: a hostile listing. */
export async function startHugeMcp(tools = 20_000) {
  const page = JSON.stringify({ tools: Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } })) });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST") return res.writeHead(405).end();
      const msg = JSON.parse(body || "{}");
      if (msg.id === undefined) return res.writeHead(202).end();
      const answer = (result) => res.writeHead(200, { "content-type": "application/json" }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`);
      if (msg.method === "initialize") {
        return answer(JSON.stringify({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "huge", version: "1" } }));
      }
      if (msg.method === "tools/list") return answer(page);
      answer("{}");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, close: () => new Promise((r) => server.close(r)) };
}

/** A request that has no answer within this long counts as one that timed out (status 0). */
const REQUEST_TIMEOUT_MS = 20_000;

/** The attacks, by the names `only` takes. */
export const ATTACKS = ["patterns", "listing", "names", "streams", "batches"];

export async function neighbours({ url, tools, report, only = ATTACKS }) {
  const key = (k) => ({ authorization: `Bearer ${k}`, "content-type": "application/json" });
  const send = async (path, body, k = BENCH_KEY, method) => {
    try {
      const res = await fetch(`${url}${path}`, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: key(k),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 0;
    }
  };
  const noop = { name: "noop", description: "noop", url: `${tools.url}/noop`, read_only: true, parameters: { type: "object" } };
  await send("/v1/config", { tools: [noop] }, OTHER_KEY, "PUT");
  let fiveXX = 0;
  let timedOut = 0;
  const count = (status) => (status >= 500 ? fiveXX++ : status === 0 ? timedOut++ : 0);

  /** The other tenant's `/parallel` p50 over `ms`, one request after another. */
  const timeOther = async (ms) => {
    const times = [];
    const end = Date.now() + ms;
    for (let i = 0; Date.now() < end; i++) {
      const at = performance.now();
      count(await send(`/v1/chats/other-${i % 20}/parallel`, { tool_calls: [{ tool_name: "noop", tool_args: {} }] }, OTHER_KEY));
      times.push(performance.now() - at);
    }
    return percentile(times, 50);
  };
  /** `attack` runs while the other tenant is timed; the attack's statuses are counted. */
  const during = async (name, attack) => {
    if (!only.includes(name.split(":")[0])) return undefined;
    const statuses = new Map();
    const tally = (s) => (count(s), statuses.set(s, (statuses.get(s) ?? 0) + 1));
    let done = false;
    const running = attack(tally).finally(() => (done = true));
    await sleep(100);
    const times = [];
    for (let i = 0; (!done || times.length < 5) && times.length < 200; i++) {
      const at = performance.now();
      count(await send(`/v1/chats/other-${i % 20}/parallel`, { tool_calls: [{ tool_name: "noop", tool_args: {} }] }, OTHER_KEY));
      times.push(performance.now() - at);
    }
    await running;
    return { name, p50: percentile(times, 50), statuses: Object.fromEntries(statuses) };
  };

  console.log("drill: round-3 attacks from one tenant while the other tenant's /parallel is timed…");
  await timeOther(1_000); // warm
  const quiet = await timeOther(3_000);
  const results = [];
  const mcp = await startHugeMcp();
  const sockets = [];
  try {
    // Fixed counts: the red team's fifty `.{5000}y` first; where that is refused, the most a schema may hold.
    const fixed = (counts) => ({ type: "object", properties: { q: { type: "string", allOf: counts.map((n) => ({ pattern: `.{${n}}y` })) } } });
    const limits = { max_body_bytes: 10_485_760, max_calls: 32 };
    const patterned = (parameters) => ({ tools: [{ ...noop, name: "fixed", parameters }], limits });
    const q = "x".repeat(10_000);
    let fifty;
    // Each attack sets up what it needs itself, so any one of them runs alone.
    const fixedCounts = await during("patterns: fixed-count patterns", async (tally) => {
        fifty = await send("/v1/config", patterned(fixed(Array(50).fill(5000))), BENCH_KEY, "PUT");
        if (fifty !== 200) await send("/v1/config", patterned(fixed(Array.from({ length: 10 }, (_, i) => 990 - i))), BENCH_KEY, "PUT");
        for (let round = 0; round < 5; round++) {
          await Promise.all(Array.from({ length: 4 }, async (_, k) => tally(await send(`/v1/chats/fixed-${k}/parallel`, { tool_calls: Array.from({ length: 8 }, () => ({ tool_name: "fixed", tool_args: { q } })) }))));
        }
      });
    if (fixedCounts) results.push({ ...fixedCounts, note: `fifty .{5000}y at PUT: ${fifty}` });

    results.push(await during("listing: a 20,000-tool MCP listing", async (tally) => {
      for (let i = 0; i < 10; i++) {
        await send("/v1/config", { mcp_servers: [{ name: "huge", url: mcp.url }], limits }, BENCH_KEY, "PUT").then(tally);
        tally(await send("/v1/tools"));
      }
    }));

    const long = "n".repeat(250_000);
    const named = { tool_calls: [...Array.from({ length: 31 }, (_, i) => ({ id: `c${i}`, type: "function", function: { name: long, arguments: "{}" } })), { id: "w", type: "function", function: { name: "noop", arguments: "{}" } }] };
    let leftHalfCreated = 0;
    results.push(await during("names: calls named with 250,000 characters", async (tally) => {
      await send("/v1/config", { tools: [noop], limits }, BENCH_KEY, "PUT");
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${url}/v1/chats/names-${i}/tool-calls`, {
          method: "POST",
          headers: { ...key(BENCH_KEY), "idempotency-key": `names-${i}` },
          body: JSON.stringify(named),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        }).catch(() => undefined);
        await res?.arrayBuffer().catch(() => {});
        tally(res?.status ?? 0);
        const chat = await fetch(`${url}/v1/chats/names-${i}`, { headers: key(BENCH_KEY), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(() => undefined);
        const body = chat?.status === 200 ? await chat.json() : (await chat?.arrayBuffer().catch(() => {}), {});
        if (chat?.status === 200 && body.chat_id !== `names-${i}`) leftHalfCreated++;
      }
    }));

    results.push(await during("streams: 300 streams", async (tally) => {
      for (let i = 0; i < 300; i++) {
        const res = await fetch(`${url}/v1/ws-tickets`, { method: "POST", headers: key(BENCH_KEY), body: "{}", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(() => undefined);
        const body = (await res?.json().catch(() => ({}))) ?? {};
        if (res?.status !== 200) {
          tally(res?.status ?? 0);
          continue;
        }
        const ws = new WebSocket(`${url.replace(/^http/, "ws")}/v1/events?ticket=${body.ticket}`);
        const opened = await new Promise((r) => {
          ws.onopen = () => r(101);
          ws.onerror = () => r(429);
          setTimeout(() => r(0), REQUEST_TIMEOUT_MS);
        });
        tally(opened);
        if (opened === 101) sockets.push(ws);
      }
      await sleep(2_000); // the streams stay open while the other tenant is timed
    }));
    for (const ws of sockets.splice(0)) ws.close();

    results.push(await during("batches: 600 small batches", async (tally) => {
      await send("/v1/config", { tools: [noop] }, BENCH_KEY, "PUT");
      let next = 0;
      await Promise.all(Array.from({ length: 30 }, async () => {
        while (next < 600) {
          const i = next++;
          tally(await send(`/v1/chats/flood-${i % 100}/parallel`, { tool_calls: [{ tool_name: "noop", tool_args: {} }] }));
        }
      }));
    }));

    for (const r of results.filter(Boolean)) {
      const ok = r.p50 <= 2 * quiet + 5;
      report(`neighbour: ${r.name}`, { "other tenant p50": `${r.p50.toFixed(1)} ms (quiet ${quiet.toFixed(1)} ms)`, attacker: JSON.stringify(r.statuses), ...(r.note ? { note: r.note } : {}) }, ok);
    }
    report("neighbours: no 5xx, no timeout, no half-created chat", { "5xx": fiveXX, "timed out": timedOut, "half-created chats": leftHalfCreated }, fiveXX === 0 && timedOut === 0 && leftHalfCreated === 0);
    return { quiet, results };
  } finally {
    for (const ws of sockets) ws.close();
    await mcp.close();
  }
}
