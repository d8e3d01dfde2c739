#!/usr/bin/env node
// @ts-check
/**
 * The outside world of the example bot on one local port: Telegram's Bot API
 * (telegram.mjs), an OpenAI-compatible LLM (llm.mjs), the `weather` demo
 * tool (weather.mjs) and the `send_postcard` one, which a person approves first (postcard.mjs). `npm run bot`
 * and the bot's tests start it in-process;
 * `node scripts/fakes/server.mjs` runs it alone (FAKES_PORT, default 8789;
 * WEATHER_SECRET, the tool's whsec_… secret, to check fanout's signatures).
 */
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { fakeLlm } from "./llm.mjs";
import { fakeTelegram } from "./telegram.mjs";
import { fakeWeather } from "./weather.mjs";
import { fakePostcard } from "./postcard.mjs";

/**
 * @typedef {import("./telegram.mjs").SentMessage} SentMessage
 * @typedef {{ url: string, port: number, close(): Promise<void> }} Fakes
 */

/**
 * Starts the fakes on 127.0.0.1 (`port` 0: any free port).
 * @param {{ port?: number, weatherSecret?: string, postcardSecret?: string, onMessage?: (message:
 * SentMessage) => void }} [options]
 * @returns {Promise<Fakes>}
 */
export async function startFakes({ port = 0, weatherSecret, postcardSecret, onMessage } = {}) {
  const handlers = [
    fakeTelegram({ onMessage }),
    fakeLlm(),
    fakeWeather({ secret: weatherSecret }),
    fakePostcard({ secret: postcardSecret }),
  ];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fakes");
      if (!handlers.some((handle) => handle(url, req, res, body)))
        res.writeHead(404, { "content-type": "text/plain" }).end(`no fake route ${req.method} ${url.pathname}`);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(undefined));
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the fakes server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fakes = await startFakes({
    port: Number(process.env.FAKES_PORT ?? 8789),
    weatherSecret: process.env.WEATHER_SECRET,
    onMessage: (m) => console.log(`[telegram] sendMessage to chat ${m.chat_id}: ${m.text}`),
  });
  console.log(`fakes on ${fakes.url}
  Telegram Bot API  ${fakes.url}/telegram        (sent messages: GET ${fakes.url}/__telegram/messages)
  LLM (OpenAI API)  ${fakes.url}/llm/v1          (model "fanout-demo" needs no script)
  weather tool      ${fakes.url}/tools/weather
  postcard tool     ${fakes.url}/tools/postcard`);
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]))
    process.on(signal, () => void fakes.close().then(() => process.exit(0)));
}
