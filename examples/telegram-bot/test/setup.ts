/**
 * Everything the bot talks to, on local ports: the fakes `npm run bot` uses
 * too (Telegram's Bot API and an OpenAI-compatible LLM, scripts/fakes/),
 * fanout under `wrangler dev` with its webhook pointed at the bot, and the bot
 * itself under `wrangler dev`, reaching fanout by URL (test/local/ covers the
 * service binding).
 */
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startFakes } from "../../../scripts/fakes/server.mjs";
import { KEY, startLocalService, startWranglerDev } from "../../../test/browser/local-service";
import { pointFanoutAtBot, setTelegramWebhook } from "../scripts/wiring.mjs";

export const SECRETS = {
  webhook: "whsec_dGVsZWdyYW0tYm90LWV4YW1wbGUtc2VjcmV0LTE=",
  telegramToken: "123456:example-token",
  telegramSecret: "telegram-secret-token",
  model: "telegram-bot-e2e",
};

declare module "vitest" {
  export interface ProvidedContext {
    botUrl: string;
    fakeUrl: string;
    fanoutUrl: string;
    fanoutKey: string;
  }
}

export default async function setup(project: TestProject) {
  const fakes = await startFakes();
  const fanout = await startLocalService();
  const bot = await startWranglerDev(fileURLToPath(new URL("..", import.meta.url)), {
    FANOUT_URL: fanout.url,
    FANOUT_API_KEY: KEY,
    FANOUT_WEBHOOK_SECRET: SECRETS.webhook,
    TELEGRAM_BOT_TOKEN: SECRETS.telegramToken,
    TELEGRAM_SECRET_TOKEN: SECRETS.telegramSecret,
    TELEGRAM_API_BASE_URL: `${fakes.url}/telegram`,
    LLM_BASE_URL: `${fakes.url}/llm/v1`,
    LLM_MODEL: SECRETS.model,
    LLM_API_KEY: "sk-test",
  });
  await pointFanoutAtBot(fanout.url, KEY, { webhookUrl: `${bot.url}/fanout`, webhookSecret: SECRETS.webhook });
  await setTelegramWebhook(`${fakes.url}/telegram`, SECRETS.telegramToken, `${bot.url}/telegram`, SECRETS.telegramSecret);
  project.provide("botUrl", bot.url);
  project.provide("fakeUrl", fakes.url);
  project.provide("fanoutUrl", fanout.url);
  project.provide("fanoutKey", KEY);
  return async () => {
    await Promise.all([bot.stop(), fanout.stop()]);
    await fakes.close();
  };
}
