/**
 * What the bot does with Telegram's Bot API: read an update (a message, or a press of an inline
 * button), send a message (with buttons), edit one, and answer a button press.
 */

export interface TextMessage {
  chat_id: number;
  text: string;
}

/** A text message in an update, or undefined for anything else (edits, stickers, joins…). */
export function textMessage(update: unknown): TextMessage | undefined {
  const message = (update as { message?: { chat?: { id?: unknown }; text?: unknown } } | null)?.message;
  if (typeof message?.chat?.id !== "number" || typeof message.text !== "string") return undefined;
  return { chat_id: message.chat.id, text: message.text };
}

/** A press of an inline button: who pressed it, on which message, and the button's `callback_data`. */
export interface ButtonPress {
  id: string;
  chat_id: number;
  message_id: number;
  data: string;
  /** The user, as a decision names them: their @username, else their first name. */
  by: string;
}

export function buttonPress(update: unknown): ButtonPress | undefined {
  const query = (update as { callback_query?: Record<string, any> } | null)?.callback_query;
  const chatId = query?.message?.chat?.id;
  if (
    typeof query?.id !== "string" ||
    typeof chatId !== "number" ||
    typeof query.message.message_id !== "number" ||
    typeof query.data !== "string"
  )
    return undefined;
  const from = query.from ?? {};
  const by =
    typeof from.username === "string"
      ? `@${from.username}`
      : typeof from.first_name === "string"
        ? from.first_name
        : "someone";
  return { id: query.id, chat_id: chatId, message_id: query.message.message_id, data: query.data, by };
}

/**
 * Whether an update carries the `secret_token` given to setWebhook. Compared as SHA-256 digests,
 * every byte of them, so the time taken says nothing about how much of a guess was right (a `!==`
 * stops at the first differing character) and nothing about the token's length.
 */
export async function hasSecretToken(header: string | null, secretToken: string): Promise<boolean> {
  if (header === null || secretToken === "") return false;
  const [got, want] = await Promise.all(
    [header, secretToken].map((s) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
  );
  const a = new Uint8Array(got!);
  const b = new Uint8Array(want!);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** Telegram refuses longer texts. */
const MAX_TEXT = 4096;

/** Inline buttons under a message: each sends its `callback_data` back to the bot when pressed. */
export interface InlineKeyboard {
  inline_keyboard: { text: string; callback_data: string }[][];
}

/** Where a bot's Telegram calls go, and as which bot. */
export interface TelegramApi {
  baseUrl: string;
  token: string;
}

async function call<T>(api: TelegramApi, method: string, body: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${api.baseUrl}/bot${api.token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`Telegram ${method} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return ((await res.json()) as { result: T }).result;
}

const fit = (text: string) => [...text].slice(0, MAX_TEXT).join("");

/** Sends a message, with buttons if given; its message id. */
export async function sendMessage(
  api: TelegramApi,
  chatId: number,
  text: string,
  keyboard?: InlineKeyboard,
): Promise<number> {
  const sent = await call<{ message_id: number }>(api, "sendMessage", {
    chat_id: chatId,
    text: fit(text),
    ...(keyboard ? { reply_markup: keyboard } : {}),
  });
  return sent.message_id;
}

/** Replaces a message's text; its buttons go. */
export const editMessageText = (api: TelegramApi, chatId: number, messageId: number, text: string) =>
  call(api, "editMessageText", { chat_id: chatId, message_id: messageId, text: fit(text) });

/** Stops the button's spinner on the presser's screen, with a short note. */
export const answerCallbackQuery = (api: TelegramApi, id: string, text: string) =>
  call(api, "answerCallbackQuery", { callback_query_id: id, text });
