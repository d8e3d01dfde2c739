/**
 * The MCP endpoint's bodies as `/openapi.json` describes them (docs/mcp.md): JSON-RPC 2.0 messages
 * in, JSON-RPC messages out (one JSON body, or an SSE stream when progress comes first). The MCP
 * specification of the version in use defines the methods; the official SDK validates them.
 */
import { z } from "zod";

const id = z.union([z.string(), z.number().int()]);

export const mcpMessage = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: id.optional().describe("Absent on a notification."),
    method: z.string().describe("server/discover, initialize, ping, tools/list, tools/call, tasks/*"),
    params: z.looseObject({}).optional(),
  })
  .describe("One JSON-RPC request or notification of MCP 2026-07-28, 2025-11-25, 2025-06-18 or 2025-03-26.");

export const mcpAnswer = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: id.nullable(),
    result: z.looseObject({}).optional(),
    error: z.looseObject({ code: z.number().int(), message: z.string() }).optional(),
  })
  .describe("The JSON-RPC response; with `Accept: text/event-stream`, progress notifications may come first as SSE.");
