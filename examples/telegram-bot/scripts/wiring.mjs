// @ts-check
/**
 * Points a fanout tenant at the bot: its webhook at the bot's /fanout, signed
 * with the secret the bot checks, the bot's tools in its config and, if given,
 * the calls a person approves in the chat first, keeping everything else the tenant had. Shared by `npm run bot` and the bot's tests.
 */

/**
 * @typedef {{ name: string, [key: string]: unknown }} ToolConfig
 * @typedef {{ tools: string[], timeout_seconds?: number }} ApprovalRule
 * @typedef {{ webhookUrl: string, webhookSecret: string, tools?: ToolConfig[], approvals?: ApprovalRule[] }} BotWiring
 */

/**
 * The tenant's tools with the bot's in place of any of the same name. Stored secrets come back from
 * `GET` as "***", which keeps them (docs/api.md#secrets) as long as a tool's URL stays on the same origin.
 * @param {ToolConfig[]} current @param {ToolConfig[]} mine
 */
export function withTools(current, mine) {
  return [...current.filter((t) => !mine.some((m) => m.name === t.name)), ...mine];
}

/** The event types the bot acts on (src/index.ts): a batch's end, and a call waiting for a person. */
export const BOT_EVENTS = ["batch.finished", "job.approval_requested", "job.approval_decided"];

/**
 * @param {string} fanoutUrl @param {string} apiKey @param {BotWiring} wiring
 * @returns {Promise<Record<string, unknown>>} the config as fanout answered it
 */
export async function pointFanoutAtBot(fanoutUrl, apiKey, { webhookUrl, webhookSecret, tools = [], approvals }) {
  /** @param {string} method @param {unknown} [body] @param {string} [type] */
  const call = (method, body, type = "application/json") =>
    fetch(`${fanoutUrl}/v1/config`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": type }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** @param {Response} res @param {string} what */
  const answer = async (res, what) => {
    const text = await res.text();
    if (!res.ok) throw new Error(`${what} /v1/config answered ${res.status}: ${text.slice(0, 500)}`);
    return /** @type {Record<string, unknown>} */ (JSON.parse(text));
  };

  const current = await answer(await call("GET"), "GET");
  const merged = withTools(/** @type {ToolConfig[]} */ (current.tools ?? []), tools);
  // The bot subscribes to what it acts on: the rest of a batch's events (job.*, chat.*) are not sent to it.
  const webhook = { url: webhookUrl, secret: webhookSecret, events: BOT_EVENTS };
  // A merge patch changes only these keys (arrays replace whole, hence the merged tool list).
  const patch = { webhook, tools: merged, ...(approvals ? { approvals } : {}) };
  return answer(await call("PATCH", patch, "application/merge-patch+json"), "PATCH");
}

/**
 * Has fanout send its signed `webhook.test` event to the bot now (docs/api.md#deliveries-redelivery-and-a-test-event), so a wrong URL or secret
 * shows before the first Telegram update: the bot answers 204 only to a signature it could check.
 * @param {string} fanoutUrl @param {string} apiKey
 * @returns {Promise<{ status: number | null, error?: string }>}
 */
export async function testWebhook(fanoutUrl, apiKey) {
  const res = await fetch(`${fanoutUrl}/v1/webhook/test`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (!res.ok) throw new Error(`POST /v1/webhook/test answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  return /** @type {{ status: number | null, error?: string }} */ (await res.json());
}

/**
 * Tells Telegram (here, the fake one) where the bot's updates go, as a deployed bot does once with
 * setWebhook: a message, or a press of one of its buttons.
 * @param {string} telegramApiBaseUrl @param {string} botToken @param {string} url @param {string} secretToken
 */
export async function setTelegramWebhook(telegramApiBaseUrl, botToken, url, secretToken) {
  const res = await fetch(`${telegramApiBaseUrl}/bot${botToken}/setWebhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url, secret_token: secretToken }),
  });
  if (!res.ok) throw new Error(`setWebhook answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}
