/**
 * A local stand-in for two model APIs, for the SDK round-trip tests: OpenAI's
 * chat completions (`POST /v1/chat/completions`, which the AI SDK's
 * openai-compatible provider calls too) and Anthropic's Messages API
 * (`POST /v1/messages`). The conversation's first user text is a JSON array of
 * calls `[{"name","input"}]` and the model asks for exactly those, each with an
 * id of its own; a turn that brings tool results back answers with them as
 * JSON text, `[{"id","content","is_error"?}]`, so a test sees what the model got.
 * Asked for no calls (`[]`), it answers the tools it was offered instead, as
 * JSON text `[{"name","description","schema"}]`: Gemini's `generateContent`
 * (`POST /v1/models/{model}:generateContent`) answers only that.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

interface Call {
  name: string;
  input: Record<string, unknown>;
}

export interface Returned {
  id: string;
  content: unknown;
  is_error?: boolean;
}

let next = 0;
const id = (prefix: string) => `${prefix}${(++next).toString(36).padStart(6, "0")}`;

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => resolve(body));
  });

const json = (res: ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/** The first user message's text: the calls to ask for. */
function asked(messages: { role: string; content: unknown }[]): Call[] {
  const first = messages.find((m) => m.role === "user");
  const content = first?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? (content.find((p) => p?.type === "text")?.text ?? "")
        : "";
  return JSON.parse(text) as Call[];
}

/** A tool as the model was offered it, the same in every API's request. */
export interface Offered {
  name: string;
  description: string;
  schema: unknown;
}

type Tools = { tools?: Record<string, unknown>[] };

const offered = (body: Tools): Offered[] =>
  (body.tools ?? []).flatMap((t): Offered[] => {
    if (t.function) {
      const f = t.function as { name: string; description: string; parameters: unknown };
      return [{ name: f.name, description: f.description, schema: f.parameters }];
    }
    if (t.functionDeclarations) {
      return (t.functionDeclarations as { name: string; description: string; parametersJsonSchema: unknown }[]).map(
        (d) => ({ name: d.name, description: d.description, schema: d.parametersJsonSchema }),
      );
    }
    return [{ name: t.name as string, description: t.description as string, schema: t.input_schema }];
  });

function chatCompletion(
  body: Tools & { model: string; messages: { role: string; content: unknown; tool_call_id?: string }[] },
) {
  const last = body.messages.at(-1)!;
  const base = {
    id: id("chatcmpl-"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
  if (last.role === "tool") {
    const results: Returned[] = [];
    for (let i = body.messages.length - 1; i >= 0 && body.messages[i]!.role === "tool"; i--)
      results.unshift({ id: body.messages[i]!.tool_call_id!, content: body.messages[i]!.content });
    return {
      ...base,
      choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(results) }, finish_reason: "stop" }],
    };
  }
  const calls = asked(body.messages);
  if (!calls.length)
    return {
      ...base,
      choices: [
        { index: 0, message: { role: "assistant", content: JSON.stringify(offered(body)) }, finish_reason: "stop" },
      ],
    };
  const tool_calls = calls.map((c) => ({
    id: id("call_"),
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  }));
  return {
    ...base,
    choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls }, finish_reason: "tool_calls" }],
  };
}

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string };

function message(body: Tools & { model: string; messages: { role: string; content: string | Block[] }[] }) {
  const last = body.messages.at(-1)!;
  const base = {
    id: id("msg_"),
    type: "message",
    role: "assistant",
    model: body.model,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  const results = Array.isArray(last.content) ? last.content.filter((b) => b.type === "tool_result") : [];
  if (results.length) {
    const returned: Returned[] = results.map((b) => ({
      id: b.tool_use_id!,
      content: b.content,
      ...(b.is_error ? { is_error: true } : {}),
    }));
    return { ...base, content: [{ type: "text", text: JSON.stringify(returned) }], stop_reason: "end_turn" };
  }
  const calls = asked(body.messages);
  if (!calls.length)
    return { ...base, content: [{ type: "text", text: JSON.stringify(offered(body)) }], stop_reason: "end_turn" };
  const uses = calls.map((c) => ({ type: "tool_use", id: id("toolu_"), name: c.name, input: c.input }));
  return { ...base, content: [{ type: "text", text: "Running them." }, ...uses], stop_reason: "tool_use" };
}

/** Gemini: the offered tools as text, whatever was asked. */
function generateContent(body: Tools) {
  return {
    candidates: [
      { index: 0, content: { role: "model", parts: [{ text: JSON.stringify(offered(body)) }] }, finishReason: "STOP" },
    ],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
}

export async function fakeModels(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const body = JSON.parse(await read(req));
      if (req.method === "POST" && req.url === "/v1/chat/completions") return json(res, 200, chatCompletion(body));
      if (req.method === "POST" && req.url === "/v1/messages") return json(res, 200, message(body));
      if (req.method === "POST" && /^\/v1(beta)?\/models\/[^/:]+:generateContent$/.test(req.url ?? ""))
        return json(res, 200, generateContent(body));
      json(res, 404, { error: { message: `no ${req.method} ${req.url} here` } });
    } catch (e) {
      json(res, 400, { error: { message: (e as Error).message } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
