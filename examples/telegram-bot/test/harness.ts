/**
 * The bot end to end, as its author would test it with `@fanout/testing`: a
 * fanout of the test's own with its scripted model as the bot's LLM, the bot
 * itself under `wrangler dev` reaching fanout by URL, every webhook delivery
 * passed on to the bot's /fanout, and the fake Telegram Bot API `npm run bot`
 * uses too (scripts/fakes/). test/local/ covers the service binding.
 */
import { fileURLToPath } from "node:url";
import { startFanout, type TestFanout } from "@fanout/testing";
import { startFakes } from "../../../scripts/fakes/server.mjs";
import { startWranglerDev } from "../../../test/browser/local-service";
import { BOT_EVENTS, setTelegramWebhook } from "../scripts/wiring.mjs";

export const SECRETS = {
  telegramToken: "123456:example-token",
  telegramSecret: "telegram-secret-token",
  model: "telegram-bot-e2e",
};

export interface BotUnderTest {
  fanout: TestFanout;
  botUrl: string;
  fakeUrl: string;
  /**
   * Stops the bot and starts it again with empty storage (a new deploy of a bot that keeps nothing,
   * the worst case), at a new URL that deliveries and Telegram's updates go to from then on.
   */
  restartBot(): Promise<void>;
  stop(): Promise<void>;
}

const BOT_DIR = fileURLToPath(new URL("..", import.meta.url));

export async function startBot(): Promise<BotUnderTest> {
  const [fanoutStart, fakesStart] = await Promise.allSettled([
    startFanout({ config: { webhook: { events: BOT_EVENTS } } }),
    startFakes(),
  ]);
  const fanout = fanoutStart.status === "fulfilled" ? fanoutStart.value : undefined;
  const fakes = fakesStart.status === "fulfilled" ? fakesStart.value : undefined;
  let bot: Awaited<ReturnType<typeof startWranglerDev>> | undefined;
  const stop = async () => {
    await Promise.allSettled([bot?.stop(), fanout?.stop()]);
    await fakes?.close();
  };
  try {
    if (!fanout || !fakes)
      throw fanoutStart.status === "rejected" ? fanoutStart.reason : (fakesStart as PromiseRejectedResult).reason;
    const vars = {
      FANOUT_URL: fanout.url,
      FANOUT_API_KEY: fanout.apiKey,
      FANOUT_WEBHOOK_SECRET: fanout.webhooks.secret,
      TELEGRAM_BOT_TOKEN: SECRETS.telegramToken,
      TELEGRAM_SECRET_TOKEN: SECRETS.telegramSecret,
      TELEGRAM_API_BASE_URL: `${fakes.url}/telegram`,
      LLM_BASE_URL: fanout.model.openaiBaseUrl,
      LLM_MODEL: SECRETS.model,
      LLM_API_KEY: "sk-test",
    };
    const wire = async (url: string) => {
      fanout.webhooks.forward(`${url}/fanout`);
      await setTelegramWebhook(
        `${fakes.url}/telegram`,
        SECRETS.telegramToken,
        `${url}/telegram`,
        SECRETS.telegramSecret,
      );
    };
    bot = await startWranglerDev(BOT_DIR, vars);
    await wire(bot.url);
    const harness: BotUnderTest = {
      fanout,
      botUrl: bot.url,
      fakeUrl: fakes.url,
      async restartBot() {
        await bot?.stop();
        bot = await startWranglerDev(BOT_DIR, vars);
        harness.botUrl = bot.url;
        await wire(bot.url);
      },
      stop,
    };
    return harness;
  } catch (error) {
    await stop(); // whatever did start
    throw error;
  }
}
