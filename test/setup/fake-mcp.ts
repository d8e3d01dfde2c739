/**
 * A real MCP server (the SDK's own McpServer over its Streamable HTTP server
 * transport, stateless), served by the fake server (see fake-servers.ts).
 * Test files run concurrently against one server, so each test names an
 * instance of its own in the path; an instance's state is its own.
 *
 *   POST /mcp/<instance>                 → MCP (initialize, tools/list, tools/call, …)
 *   POST /__mcp/state?instance=…         {"down"?: bool, "late"?: bool, "stall"?: bool, "dropCalls"?: n,
 * "refuseEchoing"?: bool}:
 *                                        down answers 503 to everything, refuseEchoing 401 with the request's
 *                                        Authorization header in the body; late adds the tool `late` to the
 * list, stall the tool `stall` (a backreference);
 *                                        dropCalls closes the socket of the next n tools/call requests
 *   GET  /__mcp/calls?instance=…         → [{tool, args, authorization, traceparent?, meta_traceparent?}] of tools/call received
 *   GET  /__mcp/lists?instance=…         → how many tools/list requests arrived, and the most
 *                                        requests the instance had open at once
 *
 * A `listing` state {tools, perPage?, descriptionChars?, endless?} answers tools/list itself, with
 * `tools` made-up tools (`t0`, `t1`, …) in pages of `perPage` (endless: a next page always):
 * a listing as large as a hostile server makes it.
 *
 * Tools: `search {query}` (readOnlyHint), `write_note {text}` (no hint), `refuse` (answers
 * isError), `slow {ms}` (readOnlyHint), `report_then_hang {reports}` (readOnlyHint: reports progress
 * `reports` times, 100 ms apart, over an event stream, then never answers), `multi` (two text blocks), `late` (only when enabled),
 * `echo_auth` (echoes the request's Authorization header in a resource part, base64 in an
 * image part, and percent-encoded, base64url, hex, JSON-escaped (`\/`, `\u002B`) and HTML-escaped
 * (`&#47;`, `&#x2b;`) in a text part: a server that echoes secrets).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

interface Instance {
  down: boolean;
  refuseEchoing?: boolean;
  late: boolean;
  /** Adds `stall`, whose input schema has a pattern no linear-time engine runs (a backreference). */
  stall?: boolean;
  dropCalls: number;
  lists: number;
  listing?: { tools: number; perPage?: number; descriptionChars?: number; endless?: boolean };
  open: number;
  maxOpen: number;
  calls: {
    tool: string;
    args: unknown;
    authorization: string | undefined;
    /** The trace context the call came with, when it had one: its `traceparent` header, and in `params._meta`. */
    traceparent?: string;
    meta_traceparent?: unknown;
  }[];
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
/** As an encoder that escapes `/` and `+` writes `value` into a JSON string, and into HTML. */
const jsonEscaped = (value: string) =>
  JSON.stringify(value).slice(1, -1).replaceAll("/", "\\/").replaceAll("+", "\\u002B");
const htmlEscaped = (value: string) => value.replaceAll("/", "&#47;").replaceAll("+", "&#x2b;");

function mcpServer(state: Instance, authorization: string | undefined, traceparent?: string): McpServer {
  const server = new McpServer({ name: "fake-mcp", version: "1.0.0" });
  const seen =
    <T>(tool: string, run: (args: T) => unknown) =>
    (args: T, extra?: { _meta?: Record<string, unknown> }) => {
      const metaTrace = extra?._meta?.traceparent;
      state.calls.push({
        tool,
        args,
        authorization,
        ...(traceparent ? { traceparent } : {}),
        ...(metaTrace ? { meta_traceparent: metaTrace } : {}),
      });
      return run(args) as never;
    };
  server.registerTool(
    "search",
    { description: "Searches the fake docs", inputSchema: { query: z.string() }, annotations: { readOnlyHint: true } },
    seen("search", ({ query }: { query: string }) => text(`found: ${query}`)),
  );
  server.registerTool(
    "write_note",
    { description: "Saves a note (a side effect)", inputSchema: { text: z.string() } },
    seen("write_note", ({ text: note }: { text: string }) => text(`saved: ${note}`)),
  );
  server.registerTool(
    "refuse",
    { description: "Always fails", annotations: { readOnlyHint: true } },
    seen("refuse", () => ({ ...text("the server refused"), isError: true })),
  );
  server.registerTool(
    "slow",
    { description: "Sleeps", inputSchema: { ms: z.number() }, annotations: { readOnlyHint: true } },
    seen("slow", ({ ms }: { ms: number }) => new Promise((r) => setTimeout(() => r(text(`slept ${ms}`)), ms))),
  );
  server.registerTool(
    "multi",
    { description: "Answers in two parts", annotations: { readOnlyHint: true } },
    seen("multi", () => ({
      content: [
        { type: "text", text: "part one" },
        { type: "text", text: "part two" },
      ],
    })),
  );
  server.registerTool(
    "echo_auth",
    { description: "Echoes the Authorization header", annotations: { readOnlyHint: true } },
    seen("echo_auth", () => {
      const auth = authorization ?? "";
      const bytes = Buffer.from(auth);
      return {
        content: [
          {
            type: "text",
            text: `pct ${encodeURIComponent(auth)} b64url ${bytes.toString("base64url")} hex ${bytes.toString("hex")}`,
          },
          { type: "text", text: `json ${jsonEscaped(auth)} html ${htmlEscaped(auth)}` },
          { type: "resource", resource: { uri: "echo://authorization", mimeType: "text/plain", text: auth } },
          { type: "image", mimeType: "image/png", data: bytes.toString("base64") },
        ],
      };
    }),
  );
  server.registerTool(
    "report_then_hang",
    {
      description: "Reports progress `reports` times, 100 ms apart, then never answers",
      inputSchema: { reports: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ reports }: { reports: number }, extra) => {
      state.calls.push({ tool: "report_then_hang", args: { reports }, authorization });
      const progressToken = extra._meta?.progressToken;
      for (let progress = 1; progress <= reports; progress++) {
        await new Promise((r) => setTimeout(r, 100));
        if (progressToken === undefined) continue;
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, total: reports + 1 },
        });
      }
      // Never answers: the client gives up (its deadline, or the stall rule) and closes the request.
      return new Promise<never>(() => {});
    },
  );
  if (state.late)
    server.registerTool(
      "late",
      { description: "Added later" },
      seen("late", () => text("late")),
    );
  if (state.stall) {
    server.registerTool(
      "stall",
      { description: "Has a pattern with a backreference", inputSchema: { word: z.string().regex(/^(a+)\1$/) } },
      seen("stall", () => text("stalled")),
    );
  }
  return server;
}

/** One page of a made-up listing, from the tool index in `cursor`. */
function listingPage(listing: NonNullable<Instance["listing"]>, cursor: string | undefined) {
  const from = Number(cursor ?? 0);
  const perPage = listing.perPage ?? listing.tools;
  const to = Math.min(from + perPage, listing.tools);
  // Without descriptions, the smallest tools a server can list: 20,000 of them fit in 1 MB.
  const tools = Array.from({ length: to - from }, (_, k) =>
    listing.descriptionChars
      ? {
          name: `t${from + k}`,
          description: "d".repeat(listing.descriptionChars),
          inputSchema: { type: "object" },
          annotations: { readOnlyHint: true },
        }
      : { name: `t${from + k}`, inputSchema: { type: "object" } },
  );
  const next =
    listing.endless || to < listing.tools ? { nextCursor: String(listing.endless ? from + perPage : to) } : {};
  return { tools, ...next };
}

export function fakeMcp() {
  const instances = new Map<string, Instance>();
  const instance = (name: string) => {
    let state = instances.get(name);
    if (!state)
      instances.set(
        name,
        (state = { down: false, late: false, dropCalls: 0, lists: 0, calls: [], open: 0, maxOpen: 0 }),
      );
    return state;
  };
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

  /** Answers the request when it is one of these routes; false otherwise. */
  return function handle(url: URL, req: IncomingMessage, res: ServerResponse, body: string): boolean {
    const mcp = /^\/mcp\/([^/]+)$/.exec(url.pathname);
    if (mcp) {
      const state = instance(mcp[1]!);
      state.open += 1;
      state.maxOpen = Math.max(state.maxOpen, state.open);
      res.on("close", () => void (state.open -= 1));
      if (state.down) {
        res.writeHead(503, { "content-type": "text/plain" }).end("fake MCP server is down");
        return true;
      }
      if (state.refuseEchoing) {
        res.writeHead(401, { "content-type": "text/plain" }).end(`invalid credentials: ${req.headers.authorization}`);
        return true;
      }
      let parsed: unknown;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        parsed = undefined;
      }
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      const method = (name: string) => messages.some((m) => (m as { method?: string } | undefined)?.method === name);
      if (method("tools/list")) state.lists += 1;
      const list = messages.find((m) => (m as { method?: string } | undefined)?.method === "tools/list") as
        | { id: number; params?: { cursor?: string } }
        | undefined;
      if (list && state.listing)
        return (
          json(res, 200, { jsonrpc: "2.0", id: list.id, result: listingPage(state.listing, list.params?.cursor) }), true
        );
      if (method("tools/call") && state.dropCalls > 0) {
        state.dropCalls -= 1;
        req.socket.destroy(); // the call left; whether the tool ran is unknown to the client
        return true;
      }
      const server = mcpServer(state, req.headers.authorization, req.headers.traceparent as string | undefined);
      // Progress needs the answer as an event stream; every other call is answered as plain JSON.
      const streamed = messages.some((m) => (m as { params?: { name?: string } })?.params?.name === "report_then_hang");
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: !streamed,
      });
      res.on("close", () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res, parsed));
      return true;
    }
    const name = url.searchParams.get("instance") ?? "";
    if (url.pathname === "/__mcp/state") {
      Object.assign(instance(name), JSON.parse(body || "{}"));
      res.writeHead(204).end();
      return true;
    }
    if (url.pathname === "/__mcp/calls") return (json(res, 200, instance(name).calls), true);
    if (url.pathname === "/__mcp/lists")
      return (json(res, 200, { lists: instance(name).lists, maxOpen: instance(name).maxOpen }), true);
    return false;
  };
}
