#!/usr/bin/env node
// @ts-check
/**
 * `npm run bot`: the example bot tried by hand, in one command. It starts the
 * outside world as fakes (Telegram, an LLM that asks for two tool calls at
 * once, a `weather` tool and a `send_postcard` one: scripts/fakes/), fanout and
 * the bot under `wrangler dev`, and wires them together: fanout's webhook points
 * at the bot's /fanout with a secret the bot is started with, the tools are in
 * fanout's config, `send_postcard` under an approval rule, and the fake Telegram
 * posts the bot's updates to its /telegram. Then it prints curls that post a
 * Telegram update and press a button; the bot's messages are printed here and
 * kept by the fake Telegram.
 *
 * Ports (fixed, so the printed commands work; each can be moved by env):
 * FANOUT_PORT 8787, BOT_PORT 8788, FAKES_PORT 8789, FANOUT_INSPECTOR_PORT 9229,
 * BOT_INSPECTOR_PORT 9230. State: LOCAL_STATE_DIR (default .wrangler/local here).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEV_KEY, DEV_VARS, ROOT } from "../../../scripts/dev.mjs";
import { DEMO_MODEL } from "../../../scripts/fakes/llm.mjs";
import { startFakes } from "../../../scripts/fakes/server.mjs";
import { weatherTool } from "../../../scripts/fakes/weather.mjs";
import { postcardTool } from "../../../scripts/fakes/postcard.mjs";
import { startWranglerDev, stopGroups, stopOnSignals, waitUntilUp } from "../../../scripts/wrangler-dev.mjs";
import { pointFanoutAtBot, setTelegramWebhook, testWebhook } from "./wiring.mjs";
import { takenPort } from "../../../scripts/ports.mjs";

const BOT_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Local-only values a person types into the curl; the fake Telegram accepts any token. */
export const LOCAL_TELEGRAM = { botToken: "123456:local-bot-token", secretToken: "local-telegram-secret" };
const UP_WITHIN_MS = 180_000;

const port = (/** @type {string} */ name, /** @type {number} */ fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new Error(`${name} must be a port number, got "${process.env[name]}"`);
  return value;
};
const ports = {
  fanout: port("FANOUT_PORT", 8787),
  bot: port("BOT_PORT", 8788),
  fakes: port("FAKES_PORT", 8789),
  fanoutInspector: port("FANOUT_INSPECTOR_PORT", 9229),
  botInspector: port("BOT_INSPECTOR_PORT", 9230),
};
const state = process.env.LOCAL_STATE_DIR ?? join(BOT_DIR, ".wrangler", "local");
const fanoutUrl = `http://127.0.0.1:${ports.fanout}`;
const botUrl = `http://127.0.0.1:${ports.bot}`;
// Fresh each run and never typed by anyone: handed straight to fanout and to the bot.
const whsec = () => `whsec_${randomBytes(32).toString("base64")}`;
const webhookSecret = whsec();
const weatherSecret = whsec();
const postcardSecret = whsec();
// Both Workers register here, and only here: the bot's FANOUT binding finds this fanout, no other.
const registry = { WRANGLER_REGISTRY_PATH: join(state, "registry") };

/** @param {string} name */
const prefixed = (name) => (/** @type {string} */ line) => console.log(`${name.padEnd(8)} | ${line}`);

// A taken port would answer our readiness checks and take our config changes: a developer's own
// `npm start` on 8787 would have its webhook and tools pointed at this run. Refuse instead.
const taken = await takenPort({
  FANOUT_PORT: ports.fanout,
  BOT_PORT: ports.bot,
  FAKES_PORT: ports.fakes,
  FANOUT_INSPECTOR_PORT: ports.fanoutInspector,
  BOT_INSPECTOR_PORT: ports.botInspector,
});
if (taken) {
  console.error(
    `could not start: port ${taken.port} (${taken.name}) is in use${taken.holder ? ` by ${taken.holder}` : ""}. ` +
      `Stop that process, or run with ${taken.name} set to a free port; nothing was started or changed.`,
  );
  process.exit(1);
}

const fakes = await startFakes({
  port: ports.fakes,
  weatherSecret,
  postcardSecret,
  onMessage: (m) => {
    const buttons = m.reply_markup
      ? `\n  [${m.reply_markup.inline_keyboard
          .flat()
          .map((b) => b.text)
          .join("] [")}]`
      : "";
    console.log(`\ntelegram | the bot replied in chat ${m.chat_id}:\n${m.text.replace(/^/gm, "  ")}${buttons}\n`);
  },
});
/** @type {import("node:child_process").ChildProcess[]} */
const children = [];
let stopping = false;
const stop = async (/** @type {string} */ reason) => {
  stopping = true;
  console.log(`stopping (${reason})`);
  await stopGroups(children);
  await fakes.close();
};
stopOnSignals(children, stop);
const exitWhenGone = (/** @type {import("node:child_process").ChildProcess} */ child, /** @type {string} */ name) =>
  child.once("exit", (code) => {
    if (stopping) return;
    console.error(`${name} stopped (exit ${code}); stopping the rest`);
    void stop(`${name} exited`).then(() => process.exit(1));
  });

try {
  const fanout = startWranglerDev({
    cwd: ROOT,
    port: ports.fanout,
    inspectorPort: ports.fanoutInspector,
    persistTo: join(state, "fanout"),
    vars: DEV_VARS,
    env: registry,
    output: prefixed("fanout"),
  });
  children.push(fanout);
  exitWhenGone(fanout, "fanout");
  await waitUntilUp(`${fanoutUrl}/healthz`, UP_WITHIN_MS, fanout);
  await pointFanoutAtBot(fanoutUrl, DEV_KEY, {
    webhookUrl: `${botUrl}/fanout`,
    webhookSecret,
    tools: [
      weatherTool(`${fakes.url}/tools/weather`, weatherSecret),
      postcardTool(`${fakes.url}/tools/postcard`, postcardSecret),
    ],
    approvals: [{ tools: ["send_postcard"], timeout_seconds: 3600 }],
  });

  const bot = startWranglerDev({
    cwd: BOT_DIR,
    port: ports.bot,
    inspectorPort: ports.botInspector,
    persistTo: join(state, "bot"),
    env: registry,
    output: prefixed("bot"),
    vars: {
      // Empty, even if a .dev.vars sets one: the bot reaches fanout over its FANOUT service binding, as when deployed.
      FANOUT_URL: "",
      FANOUT_API_KEY: DEV_KEY,
      FANOUT_WEBHOOK_SECRET: webhookSecret,
      TELEGRAM_BOT_TOKEN: LOCAL_TELEGRAM.botToken,
      TELEGRAM_SECRET_TOKEN: LOCAL_TELEGRAM.secretToken,
      TELEGRAM_API_BASE_URL: `${fakes.url}/telegram`,
      LLM_BASE_URL: `${fakes.url}/llm/v1`,
      LLM_MODEL: DEMO_MODEL,
      LLM_API_KEY: "sk-local",
    },
  });
  children.push(bot);
  exitWhenGone(bot, "bot");
  await waitUntilUp(`${botUrl}/healthz`, UP_WITHIN_MS, bot);
  await setTelegramWebhook(
    `${fakes.url}/telegram`,
    LOCAL_TELEGRAM.botToken,
    `${botUrl}/telegram`,
    LOCAL_TELEGRAM.secretToken,
  );
  const tested = await testWebhook(fanoutUrl, DEV_KEY);
  if (tested.status !== 204) {
    throw new Error(
      `fanout's test event to ${botUrl}/fanout got ${tested.status ?? tested.error}, not 204: the bot cannot check fanout's signature`,
    );
  }
  console.log(`webhook test: fanout's signed test event reached the bot, which answered 204`);
} catch (e) {
  console.error(`could not start: ${e instanceof Error ? e.message : e}`);
  await stop("start failed");
  process.exit(1);
}

console.log(`
The example bot is ready (Ctrl-C stops everything).
  fanout     ${fanoutUrl}   (dashboard: open it, key ${DEV_KEY})
  bot        ${botUrl}   (Telegram posts to /telegram, fanout to /fanout)
  fakes      ${fakes.url}   (Telegram API, LLM "${DEMO_MODEL}", weather tool)

Post a Telegram update, as Telegram would:
curl -s ${botUrl}/telegram -H 'X-Telegram-Bot-Api-Secret-Token: ${LOCAL_TELEGRAM.secretToken}' \\
  -H 'Content-Type: application/json' \\
  -d '{"update_id":1,"message":{"message_id":1,"date":0,"chat":{"id":42,"type":"private"},"text":"What is the weather in Oslo and Lisbon?"}}'

The reply is printed here within a few seconds, and kept by the fake Telegram:
curl -s '${fakes.url}/__telegram/messages?chat_id=42'

A call a person approves first: ask for a postcard (send_postcard is under an approval rule),
curl -s ${botUrl}/telegram -H 'X-Telegram-Bot-Api-Secret-Token: ${LOCAL_TELEGRAM.secretToken}' \\
  -H 'Content-Type: application/json' \\
  -d '{"update_id":2,"message":{"message_id":2,"date":0,"chat":{"id":42,"type":"private"},"text":"Send Ana a postcard."}}'
and when the bot asks with Approve and Deny buttons, press one, as the user would:
curl -s ${fakes.url}/__telegram/press -d '{"chat_id":42,"button":"Approve"}'
`);
