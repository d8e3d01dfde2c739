/**
 * Batch-level delivery options (docs/api.md#the-parallel-route): query parameters, validated against the
 * tenant's webhook config.
 */
import type { TenantConfig } from "../../core/config/schema";
import { badRequest } from "../../core/http/errors";

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
        `callback_url origin ${origin} is not allowed; add it to webhook.allowed_callback_origins with PATCH /v1/config.`,
      );
    }
  }
  const notify = query("notify");
  if (notify !== undefined) checkNotify(notify, config);
  return { callback_url: callbackUrl ?? null, notify: notify ?? null };
}

const NOTIFY_EXAMPLE = '`notify` must be a JSON object like {"telegram_chat_id": 123456789}.';

/** `?notify=` names a Telegram chat, and the tenant has a bot to send with. */
function checkNotify(notify: string, config: TenantConfig): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(notify);
  } catch {
    throw badRequest("invalid_notify", NOTIFY_EXAMPLE);
  }
  const chat = (parsed as { telegram_chat_id?: unknown } | null)?.telegram_chat_id;
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    (Number.isSafeInteger(chat) || (typeof chat === "string" && chat.length > 0));
  if (!valid) throw badRequest("invalid_notify", NOTIFY_EXAMPLE);
  if (!config.telegram) {
    throw badRequest(
      "invalid_notify",
      "`notify` needs a Telegram bot: set telegram.bot_token with PATCH /v1/config first.",
    );
  }
}
