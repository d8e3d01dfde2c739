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

/**
 * What a turn hands fanout: the chat and the conversation's newest messages that fit in `context`
 * (64 KiB as JSON; a little is left for the rest), starting at a user's message so no tool answer is
 * cut from its call. The object keeps the whole history; this is what a restart that lost it goes on from.
 */
export function turnContext(telegram_chat_id: number, steps: number, messages: Message[]): TurnContext {
  const size = (m: Message[]) => new TextEncoder().encode(JSON.stringify(m)).length;
  let from = 0;
  while (from < messages.length - 1 && size(messages.slice(from)) > CONTEXT_BUDGET) from++;
  // Back to a user's message, unless that would drop the model message the calls are in.
  while (from < messages.length - 1 && messages[from]!.role !== "user") from++;
  return { telegram_chat_id, steps, messages: messages.slice(from) };
}

/** fanout keeps up to 64 KiB of context; the chat id and step count need a few bytes of it. */
const CONTEXT_BUDGET = 60_000;

const callIds = (message: Message | undefined) =>
  message?.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [];

/** Whether two messages are the same model message with calls: the one a batch answers. */
export function sameCalls(waiting: Message | undefined, answered: Message | undefined): boolean {
  const [a, b] = [callIds(waiting), callIds(answered)];
  return a.length > 0 && a.length === b.length && a.every((id, i) => id === b[i]);
}
