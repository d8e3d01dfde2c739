/**
 * `POST /v1/chats/{chat_id}/mcp` (docs/mcp.md): fanout as an MCP server, Streamable HTTP and
 * stateless. The chat in the path holds the jobs; `?agent=` (or `Fanout-Agent`) picks the profile
 * whose tools the client sees; `metadata` and `budget` apply as on the other batch routes.
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { DEFAULT_PROFILE, requireProfile } from "../../core/agents/profiles";
import { chatLimits } from "../../core/config/chat-limits";
import { MAX_BODY_BYTES } from "../../core/config/bounds";
import { ApiError } from "../../core/http/errors";
import { readJsonBody } from "../../core/http/json-body";
import { mcpServer } from "../mcp/server";
import { legacyVersionOf, type McpSession } from "../mcp/session";
import { chatIdParam, chatStub, tenantConfig } from "../requests/context";

/** A synchronous call waits at most this long, whatever the tenant allows: under Cloudflare's 100 s cut. */
const MAX_SYNC_WAIT_SECONDS = 90;

const jsonRpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });

export const mcpRoutes = new Hono<AppEnv>()
  .post("/chats/:chat_id/mcp", async (c) => {
    const arrivedAt = Date.now();
    const chatId = chatIdParam(c);
    const config = await tenantConfig(c);
    const agent = requireProfile(config, c.req.query("agent") ?? c.req.header("fanout-agent") ?? DEFAULT_PROFILE);
    let body: unknown;
    try {
      body = await readJsonBody(c.req.raw, Math.min(config.limits.max_body_bytes, MAX_BODY_BYTES));
    } catch (e) {
      if (e instanceof ApiError && e.code === "invalid_json") return jsonRpcError(400, -32700, e.message);
      throw e;
    }
    const session = (era: McpSession["era"]): McpSession => ({
      c,
      chatId,
      agent,
      config,
      limits: chatLimits(config),
      maxWaitSeconds: Math.min(config.limits.max_wait_seconds, MAX_SYNC_WAIT_SECONDS),
      arrivedAt,
      era,
      legacyVersion: era === "legacy" ? legacyVersionOf(c.req.header("mcp-protocol-version"), body) : undefined,
      chat: () => chatStub(c, chatId),
    });
    const handler = createMcpHandler((ctx) => mcpServer(session(ctx.era)), { legacy: "stateless" });
    return handler.fetch(c.req.raw, { parsedBody: body });
  })
  .on(["GET", "DELETE"], "/chats/:chat_id/mcp", () =>
    jsonRpcError(
      405,
      -32000,
      "fanout's MCP endpoint is stateless: POST each request; there is no stream to GET or session to DELETE.",
    ),
  );
