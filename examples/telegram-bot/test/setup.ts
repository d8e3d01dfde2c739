/**
 * Everything the bot talks to, on local ports: the repository's fake servers
 * (an OpenAI-compatible LLM and Telegram's Bot API, test/setup/fake-servers.ts),
 * fanout under `wrangler dev` with its webhook pointed at the bot, and the bot
 * itself under `wrangler dev`.
 */
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import startFakeServers from "../../../test/setup/fake-servers";
import { KEY, startLocalService, startWranglerDev } from "../../../test/browser/local-service";

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
  const provided: Record<string, string> = {};
  const stopFakes = await startFakeServers({ provide: (key: string, value: string) => (provided[key] = value) } as unknown as TestProject);
  const fake = provided.toolServer!;
  const fanout = await startLocalService();
  const bot = await startWranglerDev(fileURLToPath(new URL("..", import.meta.url)), {
    FANOUT_URL: fanout.url,
    FANOUT_API_KEY: KEY,
    FANOUT_WEBHOOK_SECRET: SECRETS.webhook,
    TELEGRAM_BOT_TOKEN: SECRETS.telegramToken,
    TELEGRAM_SECRET_TOKEN: SECRETS.telegramSecret,
    TELEGRAM_API_BASE_URL: `${fake}/telegram`,
    LLM_BASE_URL: `${fake}/llm/v1`,
    LLM_MODEL: SECRETS.model,
    LLM_API_KEY: "sk-test",
  });
  await fanout.api("/v1/config", { webhook: { url: `${bot.url}/fanout`, secret: SECRETS.webhook } }, "PUT");
  project.provide("botUrl", bot.url);
  project.provide("fakeUrl", fake);
  project.provide("fanoutUrl", fanout.url);
  project.provide("fanoutKey", KEY);
  return async () => {
    await Promise.all([bot.stop(), fanout.stop()]);
    await stopFakes?.();
  };
}
