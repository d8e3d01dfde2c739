/**
 * Per-request helpers shared by the `/v1` routes: the chat id from the path,
 * the tenant's configuration, the calling agent and its policy, and the stubs
 * of the objects a request talks to. Routes import these, never each other.
 */
import type { Context } from "hono";
import type { AppEnv } from "../auth/app-env";
import { MAX_BODY_BYTES } from "../config/bounds";
import type { TenantConfig } from "../config/schema";
import { orderedRules } from "../agents/permission";
import { DEFAULT_PROFILE, profile, requireProfile } from "../agents/profiles";
import { quoteName } from "../calls/names";
import { ApiError, badRequest } from "../http/errors";
import { readJsonBody } from "../http/json-body";
import { chatName, isValidChatId, tenantName } from "../objects/names";
import { configCheck, tenantConfigOf, type ConfigCheck, type TenantReads } from "../objects/tenant-cache";
import type { SpecContext } from "../jobs/job-spec";
import type { Caller } from "../jobs/messages";
import { PatternMeter } from "../json-schema/linear-patterns";
import { toolsForAgent } from "../tools/catalog";
import { serversNamedIn } from "../tools/mcp";
import { loadMcpListings } from "../tools/mcp-listings";
import { deliveryOptions } from "./delivery-options";
import { requestMetadata } from "./metadata";
import { requestBudget } from "./budget";

type Ctx = Context<AppEnv>;

export function chatIdParam(c: Ctx): string {
  const chatId = c.req.param("chat_id") ?? "";
  if (!isValidChatId(chatId)) {
    throw badRequest(
      "invalid_chat_id",
      "chat_id must be 1-128 characters of A-Z a-z 0-9 . _ : @ ! - and not only dots.",
    );
  }
  return chatId;
}

export const tenantStub = (c: Ctx) => c.env.TENANT.getByName(tenantName(c.get("tenant")));
export const chatStub = (c: Ctx, chatId: string) => c.env.CHAT.getByName(chatName(c.get("tenant"), chatId));

/** The tenant's configuration, the same for a whole request; from the isolate's copy, checked every 5 s (`../objects/tenant-cache`). */
export async function tenantConfig(c: Ctx): Promise<TenantConfig> {
  const cached = c.get("config");
  if (cached) return cached;
  // The RPC type mapping cannot carry the schema's open JSON fields; the values are plain JSON.
  const config = await tenantConfigOf(c.get("tenant"), () => tenantStub(c) as unknown as TenantReads);
  c.set("config", config);
  return config;
}

/** This isolate's latest check of the tenant's config, handed to the chat with a batch so it need not check again. */
export const configCheckOf = (c: Ctx): ConfigCheck | undefined => configCheck(c.get("tenant"));

/** The profile named by `?agent=` (default `default`); unknown names are a 400 on every route. */
export const callerAgent = (c: Ctx, config: TenantConfig): string =>
  requireProfile(config, c.req.query("agent") ?? DEFAULT_PROFILE);

/** The calling agent's policy, handed to the chat for the checks that need its state. */
export const caller = (config: TenantConfig, agent: string): Caller => ({
  agent,
  task_rules: orderedRules(profile(config, agent).permission?.task),
});

export const chatNotFound = (chatId: string) =>
  new ApiError(404, "chat_not_found", `Chat '${quoteName(chatId)}' not found: it has no jobs yet, or it was deleted or purged.`);

/**
 * What every job-starting route reads first, in the documented order
 * (docs/api.md#validation-order-and-errors): the chat id,
 * the tenant config, the body (size and depth limits), the calling agent, and
 * the delivery options (request metadata, never model-written). Then the tools
 * the calls may use: the lists of the MCP servers the body names are fetched
 * here, since admission allows no await.
 */
export async function jobRequest(c: Ctx) {
  const chatId = chatIdParam(c);
  const config = await tenantConfig(c);
  // A document stored before the bound may hold more: the bound holds for it too.
  const body = await readJsonBody(c.req.raw, Math.min(config.limits.max_body_bytes, MAX_BODY_BYTES));
  const agent = callerAgent(c, config);
  const delivery = { ...deliveryOptions((k) => c.req.query(k), config), metadata: requestMetadata(c.req.query("metadata"), c.req.header("fanout-metadata")) };
  const budget = requestBudget(c.req.query("budget"), config.limits.budget);
  const mcp = await loadMcpListings(tenantStub(c), serversNamedIn(body, config));
  const spec: SpecContext = { config, agent, available: toolsForAgent(config, agent, mcp), mcp, patterns: new PatternMeter() };
  return { chatId, config, body, agent, delivery, spec, budget };
}

export const isUnknownTool = (e: unknown) => e instanceof ApiError && e.code === "unknown_tool";

/**
 * `spec` with every MCP server of the tenant listed, or undefined when it had them all. A
 * request lists only the servers its body names; an unknown-tool answer names every tool the
 * agent may call, so the rest are listed then, on that error path only.
 */
export async function withEveryServer(c: Ctx, spec: SpecContext): Promise<SpecContext | undefined> {
  const missing = spec.config.mcp_servers.map((s) => s.name).filter((name) => !(name in (spec.mcp ?? {})));
  if (missing.length === 0) return undefined;
  const mcp = { ...spec.mcp, ...(await loadMcpListings(tenantStub(c), missing)) };
  return { ...spec, available: toolsForAgent(spec.config, spec.agent, mcp), mcp };
}
