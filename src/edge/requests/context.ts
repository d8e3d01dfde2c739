/**
 * Per-request helpers shared by the `/v1` routes: the chat id from the path,
 * the tenant's configuration, the calling agent, and the stubs of the objects a
 * request talks to. Routes import these, never each other; the three routes that
 * start jobs read all they share through `./batch-context`.
 */
import type { Context } from "hono";
import type { AppEnv } from "../auth/app-env";
import type { TenantConfig } from "../../core/config/schema";
import { DEFAULT_PROFILE, requireProfile } from "../../core/agents/profiles";
import { quoteName } from "../../core/calls/names";
import { ApiError, badRequest } from "../../core/http/errors";
import { chatName, isValidChatId, tenantName } from "../../core/objects/names";
import { configCheck, tenantConfigOf, type ConfigCheck, type TenantReads } from "../../core/objects/tenant-cache";

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

/**
 * The tenant's configuration, the same for a whole request; from the isolate's copy, checked every 5 s
 * (`../objects/tenant-cache`).
 */
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

export const chatNotFound = (chatId: string) =>
  new ApiError(
    404,
    "chat_not_found",
    `Chat '${quoteName(chatId)}' not found: it has no jobs yet, or it was deleted or purged.`,
  );
