/**
 * `POST /v1/chats/{chat_id}/parallel` (SPEC §3): the body is the `tool_args`
 * a model wrote for the `parallel` tool. Everything that can be checked
 * without the chat's state is checked here; the ChatDO does the rest in one
 * atomic admission and answers with the payload.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { sha256 } from "../auth/api-keys";
import type { TenantConfig } from "../config/schema";
import { badRequest, fromRefusal } from "../http/errors";
import { canonicalJson, readJsonBody } from "../http/json-body";
import { respond } from "../http/respond";
import type { BatchRequest, Caller } from "../jobs/messages";
import { chatLimits } from "../config/chat-limits";
import { orderedRules } from "../agents/permission";
import { profile } from "../agents/profiles";
import { parseParallel } from "../parallel/parse-request";
import { callerAgent, chatIdParam, chatStub, tenantConfig } from "./context";

export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export const caller = (config: TenantConfig, agent: string): Caller => ({
  agent,
  task_rules: orderedRules(profile(config, agent).permission?.task),
});

/** Batch-level delivery options are request metadata (query), never model-written. */
export function deliveryOptions(query: (k: string) => string | undefined, config: TenantConfig) {
  const callbackUrl = query("callback_url");
  if (callbackUrl !== undefined) {
    let origin: string;
    try {
      origin = new URL(callbackUrl).origin;
    } catch {
      throw badRequest("invalid_callback_url", "`callback_url` must be an absolute URL.");
    }
    const allowed = [
      ...(config.webhook?.allowed_callback_origins ?? []).map((o) => new URL(o).origin),
      ...(config.webhook ? [new URL(config.webhook.url).origin] : []),
    ];
    if (!allowed.includes(origin)) {
      throw badRequest(
        "invalid_callback_url",
        `callback_url origin ${origin} is not allowed; add it to webhook.allowed_callback_origins with PUT /v1/config.`,
      );
    }
  }
  const notify = query("notify");
  if (notify !== undefined) {
    try {
      JSON.parse(notify);
    } catch {
      throw badRequest("invalid_notify", "`notify` must be a JSON object, e.g. {\"telegram_chat_id\": 123}.");
    }
  }
  return { callback_url: callbackUrl ?? null, notify: notify ?? null };
}

export async function idempotency(key: string | undefined, fingerprintOf: unknown) {
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw badRequest("invalid_idempotency_key", "Idempotency-Key must be 1-255 printable ASCII characters.");
  }
  const digest = await sha256(canonicalJson(fingerprintOf));
  return { key, fingerprint: [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") };
}

export const parallelRoutes = new Hono<AppEnv>().post("/chats/:chat_id/parallel", async (c) => {
  const chatId = chatIdParam(c);
  const config = await tenantConfig(c);
  const body = await readJsonBody(c.req.raw, config.limits.max_body_bytes);
  const agent = callerAgent(c, config);
  const delivery = deliveryOptions((k) => c.req.query(k), config);
  const command = parseParallel(body, config, agent);
  const request: BatchRequest = {
    tenant: c.get("tenant"),
    chat_id: chatId,
    route: "parallel",
    command,
    limits: chatLimits(config),
    caller: caller(config, agent),
    idempotency: await idempotency(c.req.header("idempotency-key"), { route: "parallel", body, agent, ...delivery }),
  };
  const answer = await chatStub(c, chatId).startBatch(request);
  if (!answer.ok) throw fromRefusal(answer);
  return respond(c, answer.payload);
});
