// @ts-check
/**
 * A stand-in for Telegram's Bot API that records what bots send, shared by the
 * tests (fanout's direct IM delivery, the example bot) and by `npm run bot`,
 * where it is the place a reply shows up and where a person presses a button.
 *
 *   POST /telegram/bot<token>/setWebhook          {url, secret_token?} → where updates for that bot go
 *   POST /telegram/bot<token>/sendMessage         {chat_id, text, reply_markup?} → records it; answers
 * {"ok":true,"result":{message_id,…}}
 *   POST /telegram/bot<token>/editMessageText     {chat_id, message_id, text, reply_markup?} → the message's
 * new text (and keyboard, none if absent)
 *   POST /telegram/bot<token>/answerCallbackQuery {callback_query_id, text?} → recorded
 *   GET  /__telegram/messages[?chat_id=…]          → what was sent (to that chat), oldest first, as it reads now
 *   GET  /__telegram/answers                       → the callback queries answered, oldest first
 *   POST /__telegram/press {chat_id, button, message_id?, from?} → presses the inline button `button` (its text)
 *        of that message (default: the chat's latest with a keyboard), as a user would: Telegram posts a
 *        `callback_query` update to the bot's webhook; answers {"status"} of the bot's reply
 *
 * Use `<this server>/telegram` as a bot's Telegram API base URL.
 */

/**
 * @typedef {{ text: string, callback_data?: string }} Button
 * @typedef {{ inline_keyboard: Button[][] }} Keyboard
 * @typedef {{ token: string, chat_id: unknown, message_id: number, text: string, at: number, reply_markup?:
 * Keyboard, edits: number }} SentMessage
 * @typedef {import("node:http").ServerResponse} ServerResponse
 */

/** @param {ServerResponse} res @param {number} status @param {unknown} value */
const json = (res, status, value) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/** @param {ServerResponse} res @param {string} description */
const badRequest = (res, description) =>
  json(res, 400, { ok: false, error_code: 400, description: `Bad Request: ${description}` });

/** @param {string} body @returns {Record<string, any>} */
const parse = (body) => {
  try {
    return JSON.parse(body) ?? {};
  } catch {
    return {};
  }
};

/**
 * @param {{ onMessage?: (message: SentMessage) => void }} [options] told of every message a bot sends
 * @returns {(url: URL, req: import("node:http").IncomingMessage, res: ServerResponse, body: string) => boolean}
 */
export function fakeTelegram({ onMessage } = {}) {
  /** @type {SentMessage[]} */
  const sent = [];
  /** @type {{ callback_query_id: string, text?: string, at: number }[]} */
  const answers = [];
  /** @type {Map<string, { url: string, secret_token?: string }>} */
  const webhooks = new Map();
  let updateId = 1000;

  /** @type {Record<string, (token: string, message: Record<string, any>, res: ServerResponse) => void>} */
  const methods = {
    setWebhook(token, { url, secret_token }, res) {
      if (typeof url !== "string" || !url) return badRequest(res, "a url is required");
      webhooks.set(token, { url, ...(typeof secret_token === "string" ? { secret_token } : {}) });
      json(res, 200, { ok: true, result: true, description: "Webhook was set" });
    },
    sendMessage(token, message, res) {
      // Telegram's own answer to a request it cannot use: 400 with a description.
      if (message.chat_id === undefined || typeof message.text !== "string" || !message.text)
        return badRequest(res, "chat_id and a non-empty text are required");
      /** @type {SentMessage} */
      const record = {
        token,
        chat_id: message.chat_id,
        message_id: sent.length + 1,
        text: message.text,
        at: Date.now(),
        edits: 0,
        ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
      };
      sent.push(record);
      onMessage?.(record);
      json(res, 200, {
        ok: true,
        result: { message_id: record.message_id, chat: { id: message.chat_id }, text: message.text },
      });
    },
    editMessageText(token, { chat_id, message_id, text, reply_markup }, res) {
      const found = sent.find(
        (m) => m.token === token && String(m.chat_id) === String(chat_id) && m.message_id === message_id,
      );
      if (!found) return badRequest(res, "message to edit not found");
      if (typeof text !== "string" || !text) return badRequest(res, "message text is empty");
      found.text = text;
      found.edits++;
      if (reply_markup) found.reply_markup = reply_markup;
      else delete found.reply_markup;
      json(res, 200, { ok: true, result: { message_id, chat: { id: chat_id }, text } });
    },
    answerCallbackQuery(_token, { callback_query_id, text }, res) {
      if (typeof callback_query_id !== "string") return badRequest(res, "callback_query_id is required");
      answers.push({ callback_query_id, ...(typeof text === "string" ? { text } : {}), at: Date.now() });
      json(res, 200, { ok: true, result: true });
    },
  };

  /**
   * Presses a button as a user would: the bot hears a `callback_query` at its webhook. @param {Record<string,
   * any>} press @param {ServerResponse} res
   */
  async function pressButton(press, res) {
    const inChat = sent.filter((m) => String(m.chat_id) === String(press.chat_id) && m.reply_markup);
    const message =
      press.message_id === undefined ? inChat.at(-1) : inChat.find((m) => m.message_id === press.message_id);
    const button = message?.reply_markup?.inline_keyboard.flat().find((b) => b.text === press.button);
    if (!message || !button?.callback_data)
      return json(res, 404, { error: `no button "${press.button}" on a message of chat ${press.chat_id}` });
    const webhook = webhooks.get(message.token);
    if (!webhook)
      return json(res, 409, {
        error: "the bot has not called setWebhook: Telegram would not know where to send the press",
      });
    const from = { id: 7, is_bot: false, first_name: "Tester", username: "tester", ...(press.from ?? {}) };
    const update = {
      update_id: ++updateId,
      callback_query: {
        id: `cbq-${updateId}`,
        from,
        chat_instance: "1",
        data: button.callback_data,
        message: {
          message_id: message.message_id,
          date: 0,
          chat: { id: message.chat_id, type: "private" },
          text: message.text,
        },
      },
    };
    const headers = {
      "content-type": "application/json",
      ...(webhook.secret_token ? { "x-telegram-bot-api-secret-token": webhook.secret_token } : {}),
    };
    const answer = await fetch(webhook.url, { method: "POST", headers, body: JSON.stringify(update) });
    json(res, 200, { status: answer.status, callback_query_id: update.callback_query.id });
  }

  return function handle(url, req, res, body) {
    const call = /^\/telegram\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (call && Object.hasOwn(methods, call[2] ?? "")) {
      methods[/** @type {string} */ (call[2])]?.(call[1] ?? "", parse(body), res);
      return true;
    }
    if (url.pathname === "/__telegram/messages") {
      const chat = url.searchParams.get("chat_id");
      json(res, 200, chat === null ? sent : sent.filter((m) => String(m.chat_id) === chat));
      return true;
    }
    if (url.pathname === "/__telegram/answers") {
      json(res, 200, answers);
      return true;
    }
    if (url.pathname === "/__telegram/press" && req.method === "POST") {
      pressButton(parse(body), res).catch((e) =>
        json(res, 502, { error: `the bot's webhook did not answer: ${e instanceof Error ? e.message : e}` }),
      );
      return true;
    }
    return false;
  };
}
