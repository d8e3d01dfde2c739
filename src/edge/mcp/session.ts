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
import { isObject } from "../../core/util/json";
import type { chatStub } from "../requests/context";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export const MODERN_VERSION = "2026-07-28";

/** The handshake versions served; an `initialize` asking for another gets the newest of them. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

/** The legacy version a request speaks: its header, or, on `initialize`, the one it will be answered. */
export function legacyVersionOf(header: string | undefined, body: unknown): string {
  if (isObject(body) && body.method === "initialize" && isObject(body.params)) {
    const asked = body.params.protocolVersion;
    return typeof asked === "string" && LEGACY_VERSIONS.includes(asked) ? asked : LEGACY_VERSIONS[0]!;
  }
  // A client of 2025-03-26 may send no version header; the transport specification says to assume it.
  return header ?? "2025-03-26";
}

export interface McpSession {
  c: Context<AppEnv>;
  chatId: string;
  agent: string;
  config: TenantConfig;
  limits: ChatLimits;
  /** The longest a request waits for a job: the tenant's `limits.max_wait_seconds`, at most 90. */
  maxWaitSeconds: number;
  /** When the request arrived: a synchronous call's wait counts from here. */
  arrivedAt: number;
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
