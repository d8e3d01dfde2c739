/**
 * A scripted model speaking OpenAI chat completions (`POST /v1/chat/completions`)
 * and Anthropic Messages (`POST /v1/messages`). A test queues the turns it
 * should take (which request takes which: ./model-script.ts), and everything
 * it was sent is kept to read back. fanout's
 * subagents use it as their `llm`, and the bot's own SDK client can point at it.
 */
import { json, listen, readBody, type LocalServer } from "./http.js";
import {
  chatOf,
  checkCalls,
  matcher,
  takeTurn,
  type ModelRequest,
  type ScriptedCall,
  type Turn,
  type TurnMatch,
  type TurnOptions,
} from "./model-script.js";

export type { ModelRequest, ScriptedCall, TurnMatch, TurnOptions } from "./model-script.js";

/** Turns for the requests a `when` match names. */
export interface MatchedTurns {
  reply(text: string, options?: Pick<TurnOptions, "usage">): ScriptedModel;
  callTools(calls: ScriptedCall[], options?: Pick<TurnOptions, "usage"> & { text?: string }): ScriptedModel;
  fail(status: number, message?: string): ScriptedModel;
}

export interface ScriptedModel {
  /** Anthropic's `baseURL`; the AI SDK's Anthropic provider takes `${url}/v1`. */
  url: string;
  /** OpenAI's `baseURL`, and any OpenAI-compatible client's. */
  openaiBaseUrl: string;
  /** Queue a turn that answers `text`. */
  reply(text: string, options?: TurnOptions): ScriptedModel;
  /** Queue a turn that asks for these tool calls (`text` beside them, if given). */
  callTools(calls: ScriptedCall[], options?: TurnOptions & { text?: string }): ScriptedModel;
  /** Queue a turn that fails with this HTTP status. SDKs retry 429 and 5xx, each retry taking a turn. */
  fail(status: number, message?: string, options?: TurnOptions): ScriptedModel;
  /**
   * Queue a turn only the requests `match` names take (`{chat_id?, model?, contains?}` or a function of
   * the request), before any turn queued without one: two conversations at once each take their own.
   */
  when(match: TurnMatch): MatchedTurns;
  /** Drops the turns not taken and forgets the requests: a fresh script for the next test. */
  reset(): ScriptedModel;
  /** Every request since the start (or the last `reset`), in arrival order. */
  readonly requests: ModelRequest[];
  /** Turns queued and not taken yet. */
  readonly pending: number;
}

export async function startModel(): Promise<ScriptedModel & LocalServer> {
  const turns: Turn[] = [];
  const requests: ModelRequest[] = [];
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}${(++ids).toString().padStart(4, "0")}`;

  const server = await listen(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const api =
      req.method !== "POST"
        ? undefined
        : path === "/v1/chat/completions"
          ? "openai"
          : path === "/v1/messages"
            ? "anthropic"
            : undefined;
    if (!api)
      return json(res, 404, {
        error: {
          message: `The fake model answers POST /v1/chat/completions and POST /v1/messages, not ${req.method} ${path}.`,
        },
      });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return json(res, 400, {
        type: "error",
        error: { type: "invalid_request_error", message: "The fake model takes a JSON body." },
      });
    }
    const model = String(body.model ?? "");
    const tools = ((body.tools ?? []) as { name?: string; function?: { name: string } }[]).map(
      (t) => t.function?.name ?? t.name ?? "",
    );
    const traceparent = typeof req.headers.traceparent === "string" ? { traceparent: req.headers.traceparent } : {};
    const chat_id = chatOf(body);
    const request: ModelRequest = {
      api,
      model,
      ...(chat_id !== undefined ? { chat_id } : {}),
      messages: (body.messages ?? []) as ModelRequest["messages"],
      tools,
      body,
      ...traceparent,
    };
    requests.push(request);
    if (body.stream)
      return json(res, 400, {
        error: {
          type: "invalid_request_error",
          message: "The fake model does not stream: call it without `stream: true`.",
        },
      });
    const turn = takeTurn(turns, request);
    if (!turn) {
      const waiting = turns.length ? ` (${turns.length} queued for other requests: check their when(…) or model)` : "";
      const message = `The fake model has no turn queued for model '${model}'${waiting}: call model.reply(text) or model.callTools(calls) before request ${requests.length}.`;
      return json(res, 400, { type: "error", error: { type: "invalid_request_error", message } });
    }
    if (turn.kind === "fail")
      return json(res, turn.status, { type: "error", error: { type: "api_error", message: turn.message } });
    const usage = turn.usage ?? { input: 10, output: 5 };
    json(
      res,
      200,
      api === "openai" ? chatCompletion(turn, model, usage, nextId) : anthropicMessage(turn, model, usage, nextId),
    );
  });

  const self: ScriptedModel & LocalServer = {
    ...server,
    openaiBaseUrl: `${server.url}/v1`,
    reply(text, options = {}) {
      turns.push({ ...options, kind: "reply", text });
      return self;
    },
    callTools(calls, { text, ...options } = {}) {
      checkCalls("callTools", calls);
      turns.push({ ...options, kind: "calls", calls, ...(text !== undefined ? { text } : {}) });
      return self;
    },
    fail(status, message = `Scripted failure ${status}.`, options = {}) {
      turns.push({ ...options, kind: "fail", status, message });
      return self;
    },
    when(match) {
      const only = { match: matcher(match) };
      return {
        reply(text, options = {}) {
          turns.push({ ...options, ...only, kind: "reply", text });
          return self;
        },
        callTools(calls, { text, ...options } = {}) {
          checkCalls("when(…).callTools", calls);
          turns.push({ ...options, ...only, kind: "calls", calls, ...(text !== undefined ? { text } : {}) });
          return self;
        },
        fail(status, message = `Scripted failure ${status}.`) {
          turns.push({ ...only, kind: "fail", status, message });
          return self;
        },
      };
    },
    reset() {
      turns.length = 0;
      requests.length = 0;
      return self;
    },
    requests,
    get pending() {
      return turns.length;
    },
  };
  return self;
}

type Answer = Exclude<Turn, { kind: "fail" }>;

function chatCompletion(
  turn: Answer,
  model: string,
  usage: { input: number; output: number },
  nextId: (p: string) => string,
) {
  const message =
    turn.kind === "reply"
      ? { role: "assistant", content: turn.text }
      : {
          role: "assistant",
          content: turn.text ?? null,
          tool_calls: turn.calls.map((c) => ({
            id: c.id ?? nextId("call_"),
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
          })),
        };
  return {
    id: nextId("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: turn.kind === "reply" ? "stop" : "tool_calls", logprobs: null }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function anthropicMessage(
  turn: Answer,
  model: string,
  usage: { input: number; output: number },
  nextId: (p: string) => string,
) {
  const content = [
    ...(turn.text ? [{ type: "text", text: turn.text }] : []),
    ...(turn.kind === "calls"
      ? turn.calls.map((c) => ({ type: "tool_use", id: c.id ?? nextId("toolu_"), name: c.name, input: c.args ?? {} }))
      : []),
  ];
  return {
    id: nextId("msg_"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.kind === "reply" ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}
