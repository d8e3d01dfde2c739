/**
 * The scripted model's turns: queued in order, each taken by the first request it fits. A turn
 * queued with `when(match)` fits only the requests its match names, so two conversations running at
 * once each take their own turns; the others are taken in order, as before.
 */

/** A call the model is to make. */
export interface ScriptedCall {
  name: string;
  args?: Record<string, unknown>;
  /** Default: `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic). */
  id?: string;
}

export interface TurnOptions {
  /**
   * Only a request for this model takes the turn, before any turn queued without one (an agent profile's
   * `model`, say).
   */
  model?: string;
  /** Tokens the answer reports; default 10 in, 5 out. */
  usage?: { input: number; output: number };
}

/** One request the model received. */
export interface ModelRequest {
  api: "openai" | "anthropic";
  model: string;
  /**
   * The chat the request says it is for, if it says: OpenAI's `user` or `metadata.chat_id`, or
   * Anthropic's `metadata.user_id`, as a bot sets them on its own requests.
   */
  chat_id?: string;
  /** The conversation as sent (Anthropic's `system` is not among them; see `body`). */
  messages: { role: string; content: unknown; [key: string]: unknown }[];
  /** Names of the tools offered. */
  tools: string[];
  body: Record<string, unknown>;
  /** The `traceparent` the request came with: a subagent's request in a kept trace names its `chat` span. */
  traceparent?: string;
}

/**
 * Which requests a `when` turn is for: every field given must hold (`contains`: text anywhere in the
 * conversation, `system` included), or a function of the request.
 */
export type TurnMatch =
  | { chat_id?: string; model?: string; contains?: string | RegExp }
  | ((request: ModelRequest) => boolean);

export type Turn = TurnOptions & { match?: (request: ModelRequest) => boolean } & (
    | { kind: "reply"; text: string }
    | { kind: "calls"; calls: ScriptedCall[]; text?: string }
    | { kind: "fail"; status: number; message: string }
  );

/**
 * The turn a request takes, removed from the queue: the first `when` turn that matches it, else the
 * first turn queued for its model, else the first turn queued for any.
 */
export function takeTurn(turns: Turn[], request: ModelRequest): Turn | undefined {
  let index = turns.findIndex((t) => t.match?.(request));
  if (index < 0) index = turns.findIndex((t) => !t.match && t.model === request.model);
  if (index < 0) index = turns.findIndex((t) => !t.match && t.model === undefined);
  return index < 0 ? undefined : turns.splice(index, 1)[0];
}

export function matcher(match: TurnMatch): (request: ModelRequest) => boolean {
  if (typeof match === "function") return match;
  if (match === null || typeof match !== "object")
    throw new TypeError("when(match): `match` is { chat_id?, model?, contains? } or a function of the request.");
  checkKeys("when(match)", match, ["chat_id", "model", "contains"], {});
  const { chat_id, model, contains } = match;
  return (request) =>
    (chat_id === undefined || request.chat_id === chat_id) &&
    (model === undefined || request.model === model) &&
    (contains === undefined || textHas(conversationText(request), contains));
}

const textHas = (text: string, contains: string | RegExp) =>
  typeof contains === "string" ? text.includes(contains) : contains.test(text);

/** Every string of the conversation (messages, blocks, tool results, `system`), joined. */
function conversationText(request: ModelRequest): string {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk(request.messages);
  walk(request.body.system);
  return out.join("\n");
}

/** The chat a request names, the ways bots name it on their own requests. */
export function chatOf(body: Record<string, unknown>): string | undefined {
  const metadata = body.metadata && typeof body.metadata === "object" ? (body.metadata as Record<string, unknown>) : {};
  const named = [body.user, metadata.chat_id, metadata.user_id].find((v) => typeof v === "string" && v !== "");
  return named as string | undefined;
}

/** What a scripted call is likely to be written with instead, from the SDKs' own words. */
const CALL_WORDS: Record<string, string> = {
  arguments: "args",
  input: "args",
  parameters: "args",
  tool_args: "args",
  tool_name: "name",
  toolName: "name",
  tool_call_id: "id",
  toolCallId: "id",
};

/**
 * A scripted call with a key it does not know would run with no arguments and say nothing: it throws,
 * naming the key meant (`arguments` → `args`).
 */
export function checkCalls(method: string, calls: ScriptedCall[]): void {
  if (!Array.isArray(calls) || !calls.length)
    throw new TypeError(`${method} needs at least one call; use reply(text) for a turn without calls.`);
  for (const call of calls) {
    if (!call || typeof call !== "object" || Array.isArray(call))
      throw new TypeError(
        `${method}: each call is { name, args?, id? }, e.g. { name: "search", args: { q: "otters" } }.`,
      );
    checkKeys(method, call, ["name", "args", "id"], CALL_WORDS);
    if (typeof call.name !== "string" || call.name === "")
      throw new TypeError(
        `${method}: each call has a tool's \`name\`, e.g. { name: "search", args: { q: "otters" } }.`,
      );
    if (call.args !== undefined && (call.args === null || typeof call.args !== "object" || Array.isArray(call.args)))
      throw new TypeError(`${method}: \`args\` of a call is an object (the arguments themselves, not JSON text).`);
  }
}

function checkKeys(method: string, given: object, known: string[], meant: Record<string, string>): void {
  const unknown = Object.keys(given).find((key) => !known.includes(key));
  if (unknown === undefined) return;
  const hint = meant[unknown] ? ` Did you mean \`${meant[unknown]}\`?` : "";
  throw new TypeError(
    `${method}: unknown key \`${unknown}\`.${hint} It takes ${known.map((k) => `\`${k}\``).join(", ")}.`,
  );
}
