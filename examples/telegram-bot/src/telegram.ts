/** The two things the bot does with Telegram's Bot API: read an update, send a reply. */

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

/** Telegram refuses longer texts. */
const MAX_TEXT = 4096;

export async function sendMessage(baseUrl: string, token: string, chatId: number, text: string): Promise<void> {
  const res = await fetch(`${baseUrl}/bot${token}/sendMessage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ chat_id: chatId, text: [...text].slice(0, MAX_TEXT).join("") }),
  });
  if (!res.ok) throw new Error(`Telegram sendMessage answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}
