/**
 * The official MCP SDK clients, pointed at the worker's MCP endpoint (docs/mcp.md) through
 * `SELF.fetch` with the test tenant's key: `@modelcontextprotocol/client` pinned to 2026-07-28,
 * `@modelcontextprotocol/sdk` for the handshake versions, the tasks extension's own session, and
 * raw JSON-RPC for what a test must see on the wire.
 */
import { SELF } from "cloudflare:test";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type WithTasksOptions } from "@modelcontextprotocol/ext-tasks/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TEST_KEYS } from "./setup/bindings";

export const MODERN = "2026-07-28";

export const mcpUrl = (chat: string, query = "") => new URL(`https://fanout.test/v1/chats/${chat}/mcp${query}`);

/** `fetch` into the worker, with the key (and any more headers) added. */
export const viaWorker =
  (headers: Record<string, string> = {}) =>
  (url: string | URL | Request, init?: RequestInit) => {
    const req = new Request(url, init);
    req.headers.set("authorization", `Bearer ${TEST_KEYS.acme}`);
    for (const [k, v] of Object.entries(headers)) req.headers.set(k, v);
    return SELF.fetch(req);
  };

export async function modernClient(chat: string, o: { query?: string; tasks?: boolean; name?: string } = {}) {
  const client = new ModernClient(
    { name: o.name ?? "modern-test", version: "1" },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(o.tasks ? { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } } : {}),
    },
  );
  await client.connect(new ModernTransport(mcpUrl(chat, o.query), { fetch: viaWorker() }));
  return client;
}

/** A v1 client: it asks for 2025-11-25, the newest handshake version. */
export async function legacyClient(chat: string, o: { query?: string; headers?: Record<string, string> } = {}) {
  const client = new LegacyClient({ name: "legacy-test", version: "1" }, { capabilities: {} });
  await client.connect(new LegacyTransport(mcpUrl(chat, o.query), { fetch: viaWorker(o.headers) }));
  return client;
}

/** One request of a handshake version, as its client sends it after `initialize`. */
export function legacyRequest(method: string, params: Record<string, unknown> = {}, version = "2025-06-18", id = 1) {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(method === "initialize" ? {} : { "mcp-protocol-version": version }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  };
}

/** The JSON-RPC messages of an answer, whether it came as one JSON body or as an SSE stream. */
export async function rpcMessages(res: Response): Promise<any[]> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return text ? [JSON.parse(text)] : [];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)));
}

/** One 2026-07-28 request as a client of that version frames it: the envelope and the standard headers. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  o: { id?: number | string; tasks?: boolean; name?: string; headers?: Record<string, string> } = {},
) {
  const name = (params.name ?? params.taskId) as string | undefined;
  const body = {
    jsonrpc: "2.0",
    id: o.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { name: o.name ?? "raw-test", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": o.tasks
          ? { extensions: { "io.modelcontextprotocol/tasks": {} } }
          : {},
        ...(params._meta as Record<string, unknown> | undefined),
      },
    },
  };
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
      ...o.headers,
    },
    body: JSON.stringify(body),
  };
}

/** Posts one raw request to the endpoint and answers its final JSON-RPC message (and any before it). */
export async function rpc(chat: string, init: RequestInit, query = "") {
  const res = await viaWorker()(mcpUrl(chat, query), init);
  const messages = await rpcMessages(res);
  return { status: res.status, headers: res.headers, messages, last: messages.at(-1) };
}

/**
 * A session of the tasks extension's own client over a 2026-07-28 client: its raw requests go
 * through `rpc` (the extension frames them itself).
 */
export async function taskSession(chat: string, options: WithTasksOptions = {}, name = "tasks-test") {
  const client = await modernClient(chat, { tasks: true, name });
  let dispatched = 0;
  return createTaskSessionFromClient(client, {
    endpointId: `fanout-${chat}`,
    // The host's request coordinator: it frames each request the extension builds and sends it.
    rawDispatch: async (request) => {
      const r = request as { method: string; params?: Record<string, unknown> };
      const pick = r.params?.name ?? r.params?.taskId;
      const res = await viaWorker()(mcpUrl(chat), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": r.method,
          ...(typeof pick === "string" ? { "mcp-name": pick } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++dispatched, ...r }),
      });
      const answer = (await rpcMessages(res)).at(-1);
      return answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
    },
    v2RequestFraming: {
      protocolVersion: MODERN,
      clientInfo: { name, version: "1" },
      clientCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
    },
    ...options,
  });
}
