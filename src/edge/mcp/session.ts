/**
 * What one request to the MCP endpoint knows of its caller (docs/mcp.md): the chat that holds the
 * jobs, the agent whose tools apply, the protocol era and version, and, on 2026-07-28, the client's
 * name and whether it speaks the tasks extension. Every request stands alone: nothing is kept
 * between them.
 */
import type { Context } from "hono";
import type { AppEnv } from "../auth/app-env";
import type { TenantConfig } from "../../core/config/schema";
import type { ChatLimits } from "../../core/jobs/messages";
import type { chatStub } from "../requests/context";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface McpSession {
  c: Context<AppEnv>;
  chatId: string;
  agent: string;
  config: TenantConfig;
  limits: ChatLimits;
  /** The longest a request waits for a job: the tenant's `limits.max_wait_seconds`. */
  maxWaitSeconds: number;
  /** `modern`: 2026-07-28; `legacy`: the handshake versions. */
  era: "modern" | "legacy";
  /** The legacy version the client speaks (its header, or what `initialize` asks for). */
  legacyVersion: string | undefined;
  chat(): ReturnType<typeof chatStub>;
}

/** What a 2026-07-28 request says of its client in `_meta` (the envelope the SDK lifts out). */
export interface ModernClient {
  name: string | undefined;
  tasks: boolean;
}

export function modernClient(envelope: Record<string, unknown> | undefined): ModernClient {
  const info = envelope?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown } | undefined;
  const caps = envelope?.["io.modelcontextprotocol/clientCapabilities"] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return {
    name: typeof info?.name === "string" ? info.name : undefined,
    tasks: typeof caps?.extensions?.[TASKS_EXTENSION] === "object",
  };
}

/** 2025-11-25 is the first handshake version with tasks (`params.task` on a call). */
export const legacyTasks = (s: McpSession) => s.era === "legacy" && s.legacyVersion === "2025-11-25";
