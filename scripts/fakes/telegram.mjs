// @ts-check
/**
 * A stand-in for Telegram's Bot API that records what bots send, shared by the
 * tests (fanout's direct IM delivery, the example bot) and by `npm run bot`,
 * where it is the place a reply shows up.
 *
 *   POST /telegram/bot<token>/sendMessage  → records {token, chat_id, text, at}; answers {"ok":true,…}
 *   GET  /__telegram/messages[?chat_id=…]  → what was sent (to that chat), oldest first
 *
 * Use `<this server>/telegram` as a bot's Telegram API base URL.
 */

/**
 * @typedef {{ token: string, chat_id: unknown, text: string, at: number }} SentMessage
 * @typedef {import("node:http").ServerResponse} ServerResponse
 */

/** @param {ServerResponse} res @param {number} status @param {unknown} value */
const json = (res, status, value) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/**
 * @param {{ onMessage?: (message: SentMessage) => void }} [options] told of every message a bot sends
 * @returns {(url: URL, req: import("node:http").IncomingMessage, res: ServerResponse, body: string) => boolean}
 */
export function fakeTelegram({ onMessage } = {}) {
  /** @type {SentMessage[]} */
  const sent = [];
  return function handle(url, _req, res, body) {
    const send = /^\/telegram\/bot([^/]+)\/sendMessage$/.exec(url.pathname);
    if (send) {
      /** @type {{ chat_id?: unknown, text?: unknown }} */
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        message = {};
      }
      // Telegram's own answer to a request it cannot use: 400 with a description.
      if (message.chat_id === undefined || typeof message.text !== "string" || !message.text) {
        json(res, 400, { ok: false, error_code: 400, description: "Bad Request: chat_id and a non-empty text are required" });
        return true;
      }
      const record = { token: send[1] ?? "", chat_id: message.chat_id, text: message.text, at: Date.now() };
      sent.push(record);
      onMessage?.(record);
      json(res, 200, { ok: true, result: { message_id: sent.length, chat: { id: message.chat_id }, text: message.text } });
      return true;
    }
    if (url.pathname === "/__telegram/messages") {
      const chat = url.searchParams.get("chat_id");
      json(res, 200, chat === null ? sent : sent.filter((m) => String(m.chat_id) === chat));
      return true;
    }
    return false;
  };
}
