/**
 * Real HTTP servers standing in for the outside world (tenant tool endpoints
 * and `http_request` targets). They run in Node because code inside workerd
 * cannot listen on a socket; tests get their URL through `inject("toolServer")`
 * and read what the server received from `GET /__calls`.
 *
 * Routes (tool_args drive behaviour, so one server serves every test):
 *   POST /echo                → {"result": tool_args}
 *   POST /sleep               → waits tool_args.ms, then {"result": "slept <ms>"}
 *   POST /hang                → never answers
 *   POST /status/<code>       → that status, text body "status <code>"
 *   POST /flaky               → 503 (Retry-After: 0) for the first tool_args.failures attempts of a job, then success
 *   POST /error               → {"error": "tool says no"}, or tool_args.bytes of "n" as the error
 *   POST /text                → plain text "plain answer"
 *   POST /json-other          → {"other": 1}
 *   POST /big                 → tool_args.bytes of "x", streamed, or with its length declared if tool_args.declared
 *   POST /gzip                → tool_args.bytes of "x", gzip-encoded with its (small) length declared
 *   POST /drop                → closes the socket without answering (network error)
 *   POST /redirect            → 302 to /echo
 *   any  /moved/<code>/<rest> → <code> with Location /landed/<rest> (an llm.base_url or MCP URL that redirects)
 *   any  /landed/<rest>       → 404, recorded: a request here means a redirect was followed
 *   any  /page                → "page body" (for http_request)
 *   POST /tracked             → "tracked <n>" after tool_args.ms; GET /__concurrency?group=… → the most
 *                               calls of that tool_args.group in flight at once (test files run concurrently)
 *
 * A fake OpenAI-compatible LLM lives under /llm/v1 (use it as `llm.base_url`); each test scripts its
 * own replies under a model name of its own (scripts/fakes/llm.mjs, shared with `npm run bot`).
 * A fake Telegram Bot API lives under /telegram (scripts/fakes/telegram.mjs).
 *
 * Webhook receivers: see fake-receiver.ts. An OTLP traces receiver: otlp-receiver.ts. MCP servers: see fake-mcp.ts, and the reference server
 * `@modelcontextprotocol/server-everything` (everything-mcp.ts), whose URL tests get through
 * `inject("everythingMcp")`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { gzipSync } from "node:zlib";
import type { TestProject } from "vitest/node";
import { fakeLlm } from "../../scripts/fakes/llm.mjs";
import { fakeTelegram } from "../../scripts/fakes/telegram.mjs";
import { startEverythingMcp } from "./everything-mcp";
import { fakeMcp } from "./fake-mcp";
import { fakeReceiver } from "./fake-receiver";
import { otlpReceiver } from "./otlp-receiver";

interface Call {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
  closed_at?: number;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });

export default async function setup(project: TestProject) {
  const calls: Call[] = [];
  // Test files run concurrently against this one server: overlap is counted per `group`.
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const receiver = fakeReceiver();
  const mcp = fakeMcp();
  const llm = fakeLlm();
  const telegram = fakeTelegram();
  const otlp = otlpReceiver();
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/__calls") {
      const jobId = url.searchParams.get("job_id");
      const mine = jobId ? calls.filter((c) => c.headers["idempotency-key"] === jobId) : calls;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(mine));
      return;
    }
    // OTLP's protobuf bodies are bytes: the receiver reads its own.
    if (otlp(url, req, res)) return;
    const body = await readBody(req);
    if (receiver(url, req, res, body)) return;
    if (mcp(url, req, res, body)) return;
    if (llm(url, req, res, body)) return;
    if (telegram(url, req, res, body)) return;
    if (url.pathname === "/__concurrency") {
      const group = url.searchParams.get("group") ?? "";
      return res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ max_in_flight: maxInFlight.get(group) ?? 0 }));
    }
    const received: Call = { method: req.method ?? "", path: url.pathname, headers: req.headers, body, at: Date.now() };
    calls.push(received);
    res.on("close", () => {
      if (!res.writableFinished) received.closed_at = Date.now();
    });
    let parsed: { tool_args?: Record<string, unknown>; job_id?: string; attempt?: number } = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      /* http_request bodies need not be JSON */
    }
    const args = parsed.tool_args ?? {};
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
    const moved = /^\/moved\/(\d{3})(\/.*)$/.exec(url.pathname);
    if (moved) return res.writeHead(Number(moved[1]), { location: `/landed${moved[2]}` }).end();
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) return res.writeHead(Number(status[1]), { "content-type": "text/plain" }).end(`status ${status[1]}`);
    switch (url.pathname) {
      case "/echo":
        return json(200, { result: args });
      case "/sleep":
        return setTimeout(() => json(200, { result: `slept ${args.ms}` }), Number(args.ms ?? 0));
      case "/tracked": {
        // Records how many of these calls overlap (per tool_args.group), for tiered-execution tests.
        const group = String(args.group ?? "");
        const now = (inFlight.get(group) ?? 0) + 1;
        inFlight.set(group, now);
        maxInFlight.set(group, Math.max(maxInFlight.get(group) ?? 0, now));
        return setTimeout(
          () => {
            inFlight.set(group, (inFlight.get(group) ?? 1) - 1);
            if (args.fail) json(200, { error: `tracked ${args.n} failed` });
            else json(200, { result: `tracked ${args.n}` });
          },
          Number(args.ms ?? 150),
        );
      }
      case "/hang":
        return; // never answers; the job's deadline or a cancel must end it
      case "/flaky":
        if ((parsed.attempt ?? 1) <= Number(args.failures ?? 1))
          return json(503, { error: "busy" }, { "retry-after": "0" });
        return json(200, { result: `ok on attempt ${parsed.attempt}` });
      case "/error":
        return json(200, { error: args.bytes ? "n".repeat(Number(args.bytes)) : "tool says no" });
      case "/text":
        return res.writeHead(200, { "content-type": "text/plain" }).end("plain answer");
      case "/json-other":
        return json(200, { other: 1 });
      case "/big": {
        // Streamed (chunked) unless tool_args.declared, as a web framework sends a body it holds whole.
        const big = "x".repeat(Number(args.bytes ?? 0));
        return res
          .writeHead(200, {
            "content-type": "text/plain",
            ...(args.declared ? { "content-length": String(big.length) } : {}),
          })
          .end(big);
      }
      case "/gzip": {
        // Small on the wire, tool_args.bytes once decoded: the declared length says nothing of the answer.
        const packed = gzipSync("x".repeat(Number(args.bytes ?? 0)));
        return res
          .writeHead(200, {
            "content-type": "text/plain",
            "content-encoding": "gzip",
            "content-length": String(packed.length),
          })
          .end(packed);
      }
      case "/drop":
        return req.socket.destroy();
      case "/redirect":
        return res.writeHead(302, { location: "/echo" }).end();
      case "/page":
        return res.writeHead(200, { "content-type": "text/plain" }).end(`page body (${req.method})`);
      default:
        return res.writeHead(404).end("no such fake route");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("fake tool server has no port");
  project.provide("toolServer", `http://127.0.0.1:${address.port}`);
  const everything = await startEverythingMcp();
  project.provide("everythingMcp", everything.url);
  return async () => {
    await everything.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
