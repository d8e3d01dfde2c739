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

/**
 * Whether an update carries the `secret_token` given to setWebhook. Compared as SHA-256 digests,
 * every byte of them, so the time taken says nothing about how much of a guess was right (a `!==`
 * stops at the first differing character) and nothing about the token's length.
 */
export async function hasSecretToken(header: string | null, secretToken: string): Promise<boolean> {
  if (header === null || secretToken === "") return false;
  const [got, want] = await Promise.all([header, secretToken].map((s) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))));
  const a = new Uint8Array(got!);
  const b = new Uint8Array(want!);
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
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
