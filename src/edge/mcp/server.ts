/**
 * One MCP server per request (docs/mcp.md): the official SDK speaks the protocol (2026-07-28 and
 * the handshake versions, statelessly); fanout answers its methods: `tools/list`, `tools/call`, and
 * the task methods of the client's version.
 */
import { Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import { toolDefinitions } from "../../core/agents/tool-definitions";
import { toolsForAgent } from "../../core/tools/catalog";
import { loadMcpListings } from "../../core/tools/mcp-listings";
import { InvalidCursor, mcpTools, toolsPage } from "../../core/mcp-server/tool-list";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { tenantStub } from "../requests/context";
import { callTool, type CallMode } from "./call";
import {
  LEGACY_VERSIONS,
  legacyTasks,
  MODERN_VERSION,
  modernClient,
  TASKS_EXTENSION,
  type McpSession,
} from "./session";
import * as tasks from "./tasks";

export const SERVER_INFO = { name: "fanout", version: "1.4.0" };

/** How long a client may keep a tool list: as long as a worker keeps the tenant's config. */
const LIST_TTL_MS = 5_000;

/** A 2026 tasks client gets the result itself when the job ends this soon, a task otherwise. */
const TASK_AFTER_MS = 1_000;

const INSTRUCTIONS =
  "Every tool call becomes a durable fanout job under the tenant's caps, flow rules, approvals and budgets.";

export function mcpServer(s: McpSession): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      ...(s.era === "modern" ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      ...(legacyTasks(s) ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    },
    instructions: INSTRUCTIONS,
    // These and no others: the SDK's own list has 2024 versions too, which fanout does not serve.
    supportedProtocolVersions: [MODERN_VERSION, ...LEGACY_VERSIONS],
    cacheHints: { "tools/list": { ttlMs: LIST_TTL_MS, cacheScope: "private" } },
  });

  server.setRequestHandler("tools/list", async (req) => {
    const mcp = await loadMcpListings(
      tenantStub(s.c),
      s.config.mcp_servers.map((m) => m.name),
    );
    const defs = toolDefinitions(s.config, s.agent, 0, undefined, mcp);
    const tools = mcpTools(defs, toolsForAgent(s.config, s.agent, mcp), { taskSupport: legacyTasks(s) });
    try {
      return toolsPage(tools, req.params?.cursor);
    } catch (e) {
      if (e instanceof InvalidCursor) throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
      throw e;
    }
  });

  server.setRequestHandler("tools/call", async (req, ctx) => {
    const params = req.params as { name: string; arguments?: Record<string, unknown>; task?: unknown };
    const client = modernClient(ctx.mcpReq.envelope as Record<string, unknown> | undefined);
    // A 2025-11-25 task-augmented call is always answered with its task.
    if (legacyTasks(s) && params.task !== undefined) {
      const answer = await callTool(s, params, { kind: "task", waitMs: 0, always: true });
      // `content` beside `task`: the SDK's 2025 leg refuses a tools/call result without it; a client ignores it.
      return wire("task" in answer ? { content: [], task: tasks.legacyTask(s, answer.task) } : answer.result);
    }
    const token = (params as { _meta?: { progressToken?: string | number } })._meta?.progressToken;
    const mode: CallMode =
      s.era === "modern" && client.tasks
        ? { kind: "task", waitMs: TASK_AFTER_MS }
        : { kind: "sync", ...(token !== undefined ? { progress: progressTo(ctx, token) } : {}) };
    const answer = await callTool(s, params, mode);
    return wire("task" in answer ? tasks.createdTask(s, answer.task) : answer.result);
  });

  // Registered with their schemas: the SDK types the task methods of neither exchange.
  const byTaskId = { params: z.looseObject({ taskId: z.string() }) };
  if (s.era === "modern") {
    server.setRequestHandler("tasks/get", byTaskId, (p, ctx) =>
      tasks.getModernTask(s, modernClient(ctx.mcpReq.envelope as Record<string, unknown>), p.taskId),
    );
    // The SDK lifts `inputResponses` out of the params it hands over, as for any retried request.
    server.setRequestHandler("tasks/update", byTaskId, (p, ctx) =>
      tasks.updateModernTask(
        s,
        modernClient(ctx.mcpReq.envelope as Record<string, unknown>),
        p.taskId,
        ctx.mcpReq.inputResponses ?? {},
      ),
    );
    server.setRequestHandler("tasks/cancel", byTaskId, (p) => tasks.cancelModernTask(s, p.taskId));
  } else if (legacyTasks(s)) {
    server.setRequestHandler("tasks/get", byTaskId, (p) => tasks.getLegacyTask(s, p.taskId));
    server.setRequestHandler("tasks/result", byTaskId, (p) => tasks.legacyTaskResult(s, p.taskId));
    server.setRequestHandler(
      "tasks/list",
      { params: z.looseObject({ cursor: z.string().optional() }).optional() },
      (p) => tasks.listLegacyTasks(s, p?.cursor),
    );
    server.setRequestHandler("tasks/cancel", byTaskId, (p) => tasks.cancelLegacyTask(s, p.taskId));
  }
  return server;
}

/**
 * fanout's results as the SDK's handler types take them: its content parts are the MCP tool's own
 * and the task shapes are the extensions', which the SDK does not type.
 */
const wire = <T>(result: T) => result as never;

/** Sends `notifications/progress` with a growing `progress` and what the call waits for. */
function progressTo(
  ctx: { mcpReq: { notify: (n: { method: string; params: Record<string, unknown> }) => Promise<void> } },
  token: string | number,
) {
  let progress = 0;
  return async (message: string | undefined) => {
    progress += 1;
    await ctx.mcpReq.notify({
      method: "notifications/progress",
      params: { progressToken: token, progress, ...(message ? { message } : {}) },
    });
  };
}
