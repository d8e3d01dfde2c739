/**
 * The agent turn's bookkeeping, with no I/O: what a turn hands fanout as its `context` with the
 * model message's calls, and whether a `batch.finished` answers the calls the conversation waits on.
 */
import type OpenAI from "openai";

export type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** What `batch.finished` brings back for the turn to go on: the Telegram chat, and the conversation so far. */
export interface TurnContext {
  telegram_chat_id: number;
  /** Model calls made for the user's message so far. */
  steps: number;
  /** The conversation, ending with the model message whose calls fanout runs. */
  messages: Message[];
}

const callIds = (message: Message | undefined) =>
  message?.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [];

/** Whether two messages are the same model message with calls: the one a batch answers. */
export function sameCalls(waiting: Message | undefined, answered: Message | undefined): boolean {
  const [a, b] = [callIds(waiting), callIds(answered)];
  return a.length > 0 && a.length === b.length && a.every((id, i) => id === b[i]);
}
