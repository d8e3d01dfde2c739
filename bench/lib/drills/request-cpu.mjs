/**
 * Drill: what one request of each attack shape costs in CPU, measured in workerd (docs/security.md).
 * In production each chat is its own object and Worker invocations are spread over machines, so
 * isolation between tenants under load is the platform's; what fanout owes is that no input,
 * configuration, listing or expression costs more than about 50 ms of CPU, and the per-key rate
 * limit bounds how many requests a key sends. Under `wrangler dev` one thread runs every isolate,
 * so a neighbour's latency there measures the thread, not fanout: this drill measures CPU instead.
 *
 * Each shape runs alone: workerd is let settle, the shape's requests go one after another, workerd
 * is let settle again (so the jobs the requests started are paid for too), and the process group's
 * CPU time (from /proc, 10 ms ticks) is divided by the requests; the less of two such runs counts. A shape
 * whose requests start jobs
 * names a control that starts the same jobs without the attack (32 calls cost about 160 ms in all
 * under `wrangler dev`, over some forty invocations); what the attack adds is held to 50 ms.
 * `neighbour: true` also times the other tenant's `/parallel` while each shape runs again, for
 * before-and-after figures; it decides nothing.
 */
import { createServer } from "node:http";
import { settle, workerdUsage } from "../proc.mjs";
import { percentile } from "../stats.mjs";
import { BENCH_KEY, OTHER_KEY } from "../services.mjs";

/** The contract: no input costs more than about 50 ms of CPU. */
export const CPU_LIMIT_MS = 50;

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A Streamable HTTP MCP server, hand-written so that it can be hostile: `huge` lists `tools` made-up
 * tools in one page; `echo` answers every call with the Authorization header it was sent, repeated
 * in the forms a JSON or HTML encoder writes, filling about `echoBytes` (what a job stores at most).
 */
export async function startHostileMcp({ tools = 20_000, echoBytes = 1_000_000 } = {}) {
  const page = JSON.stringify({
    tools: Array.from({ length: tools }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" } })),
  });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST") return res.writeHead(405).end();
      const msg = JSON.parse(body || "{}");
      if (msg.id === undefined) return res.writeHead(202).end();
      const answer = (result) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`);
      if (msg.method === "initialize") {
        return answer(
          JSON.stringify({
            protocolVersion: msg.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "hostile", version: "1" },
          }),
        );
      }
      if (msg.method === "tools/list") {
        if (req.url.endsWith("/huge")) return answer(page);
        return answer(
          JSON.stringify({
            tools: [{ name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }],
          }),
        );
      }
      if (msg.method === "tools/call") {
        // Without a secret to echo (the control), text of the same shape that is no secret.
        const secret = req.headers.authorization ?? "AKIA-wJalrXUtnFEMI-bPxRfiCYEXAMPLE-PLAIN";
        const html = secret.replace(/[^A-Za-z0-9]/g, (c) => `&#${c.charCodeAt(0)};`);
        const escaped = JSON.stringify(secret).slice(1, -1).replace(/\//g, "\\/");
        const unit = `${secret} ${escaped} ${html} ${Buffer.from(secret).toString("base64")} `;
        const text = unit.repeat(Math.max(1, Math.floor(echoBytes / unit.length)));
        return answer(JSON.stringify({ content: [{ type: "text", text }] }));
      }
      answer("{}");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  return { url, hugeUrl: `${url}/huge`, close: () => new Promise((r) => server.close(r)) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The attack shapes, each `{name, setup?, request(i), requests}`: `setup` configures the attacker's
 * tenant; `request(i)` sends the i-th request and answers its HTTP status.
 */
function shapes({ send, noop, mcp, tools }) {
  const limits = { max_body_bytes: 655_360, max_calls: 32, max_wait_seconds: 30 };
  const patterned = (name, parameters) => ({ tools: [{ ...noop, name, parameters }], limits });
  const string = (pattern) => ({ type: "object", properties: { q: { type: "string", pattern } } });
  const calls = (n, call) => ({ tool_calls: Array.from({ length: n }, (_, k) => call(k)), wait: false });
  const worstPattern = "(?:a?){490}a{490}";
  const fixed = {
    type: "object",
    properties: { q: { type: "string", allOf: Array.from({ length: 10 }, (_, i) => ({ pattern: `.{${990 - i}}y` })) } },
  };
  const keyedRules = Array.from({ length: 32 }, (_, r) => ({
    name: `keyed-${r}`,
    tools: ["noop"],
    key: "args.u",
    concurrency: 32,
  }));
  let chat = 0;
  const fresh = (prefix) => `${prefix}-${chat++}`;
  // A server of its own per shape: a changed definition is not listed again within 10 s.
  const echoServer = (name, headers) => ({ tools: [noop], mcp_servers: [{ name, url: mcp.url, headers }], limits });
  const echoBatch = (name) => ({ tool_calls: [{ tool_name: `${name}__echo`, tool_args: {} }], wait: true });
  return [
    {
      name: "control: 32 calls of a tool with no schema, every one with its own argument",
      setup: () => send("/v1/config", { tools: [noop], limits }, BENCH_KEY, "PUT"),
      request: (i) =>
        send(
          `/v1/chats/${fresh("control")}/parallel`,
          calls(32, (k) => ({ tool_name: "noop", tool_args: { u: `u-${i}-${k}` } })),
        ),
      requests: 8,
    },
    {
      name: `patterns: ${worstPattern} on 124 characters, 32 calls`,
      setup: () => send("/v1/config", patterned("pat", string(worstPattern)), BENCH_KEY, "PUT"),
      request: () =>
        send(`/v1/chats/${fresh("pattern")}/tool-calls`, {
          tool_calls: Array.from({ length: 32 }, () => ({ name: "pat", arguments: { q: "a".repeat(124) } })),
        }),
    },
    {
      name: "patterns: ten .{990}y against 10,000 characters, 32 calls",
      setup: () => send("/v1/config", patterned("fixed", fixed), BENCH_KEY, "PUT"),
      request: () =>
        send(`/v1/chats/${fresh("fixed")}/tool-calls`, {
          tool_calls: Array.from({ length: 32 }, () => ({ name: "fixed", arguments: { q: "x".repeat(10_000) } })),
        }),
    },
    {
      name: "flow control: 32 keyed rules × 32 calls, all of one key",
      setup: () => send("/v1/config", { tools: [noop], flow: keyedRules, limits }, BENCH_KEY, "PUT"),
      request: () =>
        send(
          `/v1/chats/${fresh("one-key")}/parallel`,
          calls(32, () => ({ tool_name: "noop", tool_args: { u: "one" } })),
        ),
      requests: 8,
    },
    {
      name: "flow keys: 32 keyed rules × 32 calls, every key new",
      control: "flow control",
      setup: () => send("/v1/config", { tools: [noop], flow: keyedRules, limits }, BENCH_KEY, "PUT"),
      request: (i) =>
        send(
          `/v1/chats/${fresh("keys")}/parallel`,
          calls(32, (k) => ({ tool_name: "noop", tool_args: { u: `u-${i}-${k}` } })),
        ),
      requests: 8,
    },
    {
      name: "echo control: an MCP tool answering 1 MB with no secret in it",
      setup: () => send("/v1/config", echoServer("plain", {}), BENCH_KEY, "PUT"),
      request: () => send(`/v1/chats/${fresh("plain")}/parallel`, echoBatch("plain")),
      requests: 8,
    },
    {
      name: "echoes: an MCP tool echoing its secret in 1 MB, plain, JSON- and HTML-escaped",
      control: "echo control",
      setup: () =>
        send(
          "/v1/config",
          echoServer("echo", { Authorization: "AKIA/wJalrXUtnFEMI+bPxRfiCYEXAMPLEKEY=" }),
          BENCH_KEY,
          "PUT",
        ),
      request: () => send(`/v1/chats/${fresh("echo")}/parallel`, echoBatch("echo")),
      requests: 8,
    },
    {
      name: "config: 32 approval rules × 64 globs over 32 MCP servers",
      request: () =>
        send(
          "/v1/config",
          {
            mcp_servers: Array.from({ length: 32 }, (_, i) => ({
              name: `${"s".repeat(44)}${i}`,
              url: `${tools.url}/mcp`,
            })),
            approvals: Array.from({ length: 32 }, () => ({ tools: Array.from({ length: 64 }, () => "*?".repeat(64)) })),
          },
          BENCH_KEY,
          "PUT",
        ),
    },
    {
      name: "ids: await 64 job ids of 5,000 characters",
      setup: () => send("/v1/config", { tools: [noop], limits }, BENCH_KEY, "PUT"),
      request: () =>
        send(`/v1/chats/ids/parallel`, {
          action: "await",
          job_ids: Array.from({ length: 64 }, (_, k) => `${k}${"j".repeat(5000)}`),
        }),
    },
    {
      name: "listing: a 20,000-tool MCP listing stored, then listed (two requests)",
      request: async () => {
        const put = await send(
          "/v1/config",
          { mcp_servers: [{ name: "huge", url: mcp.hugeUrl }], limits },
          BENCH_KEY,
          "PUT",
        );
        return put === 200 ? send("/v1/tools") : put;
      },
      requests: 10,
    },
    {
      name: "names: 31 calls named with 20,000 characters (a body of 640 KiB, the most a tenant may allow)",
      setup: () => send("/v1/config", { tools: [noop], limits }, BENCH_KEY, "PUT"),
      request: () =>
        // One chat: a new chat's first request costs about 25 ms whatever it holds (the batch flood below).
        send(`/v1/chats/names/tool-calls`, {
          tool_calls: [
            ...Array.from({ length: 31 }, (_, k) => ({
              id: `c${k}`,
              type: "function",
              function: { name: "n".repeat(20_000), arguments: "{}" },
            })),
            { id: "w", type: "function", function: { name: "noop", arguments: "{}" } },
          ],
        }),
      requests: 10,
    },
    {
      name: "batches: one small batch (of a flood of 600)",
      setup: () => send("/v1/config", { tools: [noop] }, BENCH_KEY, "PUT"),
      request: (i) =>
        send(`/v1/chats/flood-${i % 100}/parallel`, { tool_calls: [{ tool_name: "noop", tool_args: {} }] }),
      requests: 600,
      concurrency: 30,
    },
  ];
}

export async function requestCpu({ url, groupId, tools, report, neighbour = false, only }) {
  const key = (k) => ({ authorization: `Bearer ${k}`, "content-type": "application/json" });
  const send = async (path, body, k = BENCH_KEY, method) => {
    try {
      const res = await fetch(`${url}${path}`, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: key(k),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status >= 500 && process.env.DRILL_DEBUG) console.error(res.status, path, text.slice(0, 300));
      return res.status;
    } catch {
      return 0;
    }
  };
  const noop = {
    name: "noop",
    description: "noop",
    url: `${tools.url}/noop`,
    read_only: true,
    parameters: { type: "object" },
  };
  await send("/v1/config", { tools: [noop] }, OTHER_KEY, "PUT");
  const mcp = await startHostileMcp();
  let fiveXX = 0;
  let timedOut = 0;
  const otherP50 = async (whileRunning) => {
    const times = [];
    let done = false;
    const running = whileRunning().finally(() => (done = true));
    await sleep(100);
    for (let i = 0; (!done || times.length < 5) && times.length < 200; i++) {
      const at = performance.now();
      await send(
        `/v1/chats/other-${i % 20}/parallel`,
        { tool_calls: [{ tool_name: "noop", tool_args: {} }] },
        OTHER_KEY,
      );
      times.push(performance.now() - at);
    }
    await running;
    return percentile(times, 50);
  };
  const rows = [];
  try {
    const quiet = neighbour ? await otherP50(() => sleep(3_000)) : undefined;
    for (const shape of shapes({ send, noop, mcp, tools })) {
      const isControl = shape.name.includes("control");
      if (only && !isControl && !only.some((word) => shape.name.startsWith(word))) continue;
      if (shape.setup) {
        const status = await shape.setup();
        if (status !== 200) throw new Error(`${shape.name}: its configuration answered ${status}`);
      }
      const n = shape.requests ?? 20;
      const statuses = new Map();
      const run = async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: shape.concurrency ?? 1 }, async () => {
            while (next < n) {
              const status = await shape.request(next++);
              if (status >= 500) fiveXX++;
              if (status === 0) timedOut++;
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
            }
          }),
        );
      };
      // Twice, and the less of the two: noise (this machine is a VM on shared cores) only ever adds
      // CPU, and one run in five came out 1.5× slower on every shape alike, controls included.
      const measure = async () => {
        await settle([groupId]);
        const before = workerdUsage(groupId).cpuSeconds;
        const started = performance.now();
        await run();
        const wall = performance.now() - started;
        await settle([groupId]);
        return { cpuMs: ((workerdUsage(groupId).cpuSeconds - before) * 1000) / n, wall };
      };
      const [first, second] = [await measure(), await measure()];
      const { cpuMs, wall } = first.cpuMs <= second.cpuMs ? first : second;
      // A shape whose requests start jobs pays for them too: its control does the same without the attack.
      const control = shape.control ? rows.find((r) => r.name.startsWith(shape.control)) : undefined;
      const extraMs = cpuMs - (control?.cpuMs ?? 0);
      const row = { name: shape.name, cpuMs, extraMs, wallMs: wall / n, statuses: Object.fromEntries(statuses) };
      if (neighbour) row.otherP50 = await otherP50(run);
      rows.push(row);
      report(
        `request CPU: ${shape.name}`,
        {
          "CPU per request": control
            ? `${cpuMs.toFixed(1)} ms, ${extraMs.toFixed(1)} ms more than its control (limit ${CPU_LIMIT_MS})`
            : `${cpuMs.toFixed(1)} ms (limit ${CPU_LIMIT_MS})`,
          "wall per request": `${row.wallMs.toFixed(1)} ms`,
          answers: JSON.stringify(row.statuses),
          ...(neighbour ? { "other tenant p50": `${row.otherP50.toFixed(1)} ms (quiet ${quiet.toFixed(1)} ms)` } : {}),
        },
        isControl || extraMs <= CPU_LIMIT_MS,
      );
    }
    report("request CPU: no 5xx, no timeout", { "5xx": fiveXX, "timed out": timedOut }, fiveXX === 0 && timedOut === 0);
    return { quiet, rows };
  } finally {
    await mcp.close();
  }
}
