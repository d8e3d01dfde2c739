#!/usr/bin/env node
/**
 * `npm run bench:mcp`: one tool call through fanout's MCP endpoint against the same call through
 * `/tool-calls` (docs/benchmarks.md#mcp), in one run against a fanout it starts under `wrangler dev`.
 * The two alternate call by call, each a fresh chat, so a slow stretch of the machine falls on both:
 * - `tools/call` as a 2026-07-28 client sends it (its envelope and headers), answered synchronously;
 * - `POST /v1/chats/{chat}/tool-calls` with the same call in OpenAI's shape.
 * Calls of 0 ms (fanout's own overhead) and 200 ms. `--check` fails the run when either p50 ratio is
 * above 1.2.
 */
import { BENCH_KEY, startFanout, UNLIMITED } from "./lib/services.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { startToolServer } from "./lib/tool-server.mjs";

const REPS = Number(process.env.MCP_REPS ?? 150);
const TARGET = 1.2;
const check = process.argv.includes("--check");
const auth = { authorization: `Bearer ${BENCH_KEY}` };

const tools = await startToolServer();
const fanout = await startFanout({}, { requestsPer10s: UNLIMITED });
let seq = 0;
const chat = (side) => `mcp-bench-${side}-${process.pid}-${++seq}`;

async function viaToolCalls(args) {
  const res = await fetch(`${fanout.url}/v1/chats/${chat("tc")}/tool-calls`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      tool_calls: [{ id: "call_1", type: "function", function: { name: "slow", arguments: JSON.stringify(args) } }],
    }),
  });
  const body = await res.json();
  if (body.results?.[0]?.state !== "success") throw new Error(`/tool-calls: ${JSON.stringify(body).slice(0, 300)}`);
}

async function viaMcp(args) {
  const res = await fetch(`${fanout.url}/v1/chats/${chat("mcp")}/mcp`, {
    method: "POST",
    headers: {
      ...auth,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "slow",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "slow",
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const body = await res.json();
  if (body.result?.structuredContent?.state !== "success")
    throw new Error(`mcp: ${JSON.stringify(body).slice(0, 300)}`);
}

const timed = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

try {
  const configured = await fetch(`${fanout.url}/v1/config`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      tools: [
        {
          name: "slow",
          description: "waits",
          url: `${tools.url}/slow`,
          read_only: true,
          parameters: { type: "object" },
        },
      ],
      limits: { max_wait_seconds: 95 },
    }),
  });
  if (!configured.ok) throw new Error(`config: ${configured.status} ${await configured.text()}`);
  for (let i = 0; i < 20; i++) await Promise.all([viaToolCalls({ ms: 0 }), viaMcp({ ms: 0 })]);

  const figures = {};
  for (const ms of [0, 200]) {
    const samples = { toolCalls: [], mcp: [] };
    for (let i = 0; i < REPS; i++) {
      // Each pair in turn goes first.
      const order = i % 2 ? ["mcp", "toolCalls"] : ["toolCalls", "mcp"];
      for (const side of order)
        samples[side].push(await timed(() => (side === "mcp" ? viaMcp({ ms }) : viaToolCalls({ ms }))));
    }
    const p = (xs, q) => round(percentile(xs, q), 1);
    figures[`${ms}ms`] = {
      toolCalls: { p50: p(samples.toolCalls, 50), p90: p(samples.toolCalls, 90) },
      mcp: { p50: p(samples.mcp, 50), p90: p(samples.mcp, 90) },
      ratioP50: round(percentile(samples.mcp, 50) / percentile(samples.toolCalls, 50), 3),
    };
  }
  console.log(JSON.stringify({ reps: REPS, target: TARGET, figures }, null, 2));
  const missed = Object.entries(figures).filter(([, f]) => f.ratioP50 > TARGET);
  for (const [name, f] of missed)
    console.log(`MISS ${name}: MCP p50 is ${f.ratioP50}× /tool-calls (target ≤ ${TARGET}×)`);
  if (check && missed.length) process.exitCode = 1;
} finally {
  await fanout.stop();
  await tools.close();
}
