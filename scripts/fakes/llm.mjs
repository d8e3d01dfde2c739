// @ts-check
/**
 * A stand-in OpenAI-compatible chat-completions endpoint, shared by the tests
 * (test/setup/fake-servers.ts, the example bot's) and by `npm run bot`, so the
 * model a person tries by hand is the one the tests drive.
 *
 *   POST <prefix>/chat/completions → the next scripted reply for the request's `model`
 *   POST /__llm/script  {"model", "replies":[{content?, tool_calls?:[{name, arguments}], status?, delay_ms?}]}
 *   GET  /__llm/requests?model=…  → the chat-completions requests received for that model, each with
 *                                    `received_trace`: the `traceparent` and `tracestate` headers it came with
 *   GET  /__llm/concurrency?model=… → {"max_in_flight"}: the most requests for that model answered at once
 *   GET  /__llm/dropped?model=… → {"dropped"}: requests for that model whose caller hung up before the reply
 *
 * A model with no script answers by its built-in behaviour (`DEMO_MODEL`: two
 * `weather` calls at once, or a `send_postcard` call when asked for a postcard, then an answer from
 * their results); any other
 * model whose script is missing or used up answers "(script finished)".
 * In a reply's content and arguments, `{{authorization}}`, `{{authorization_base64}}`,
 * `{{authorization_json}}` (`/` written `\/`, `+` `\u002B`) and `{{authorization_html}}` (`&#47;`,
 * `&#x2b;`) become the request's `Authorization` header: a provider that echoes its key.
 */

/** @param {string} value as an encoder that escapes `/` and `+` writes it into a JSON string */
const jsonEscaped = (value) => JSON.stringify(value).slice(1, -1).replaceAll("/", "\\/").replaceAll("+", "\\u002B");

/** The example bot's model under `npm run bot`: it needs no script. */
export const DEMO_MODEL = "fanout-demo";
/** The cities the demo model asks about, one `weather` call each, in one message. */
export const DEMO_CITIES = ["Oslo", "Lisbon"];

/**
 * @typedef {{ content?: string, tool_calls?: { name: string, arguments: unknown }[], status?: number,
 * delay_ms?: number }} ScriptedReply
 * @typedef {{ role: string, content?: string | null, tool_calls?: { id: string, function: { name: string,
 * arguments: string } }[], tool_call_id?: string }} ChatMessage
 * @typedef {{ model: string, messages: ChatMessage[] }} ChatRequest
 * @typedef {import("node:http").ServerResponse} ServerResponse
 */

/** Who the demo model sends a postcard to, when a message asks for one. */
export const DEMO_POSTCARD = { to: "Ana", text: "Greetings from fanout!" };

/**
 * The demo model: asked about a user's message, it calls `weather` for each of `DEMO_CITIES` in one
 * message (so the bot hands fanout two calls at once), or `send_postcard` when the message mentions a
 * postcard (a call a person approves first); given their results, it answers with them.
 * @param {ChatMessage[]} messages
 * @returns {ScriptedReply}
 */
export function demoReply(messages) {
  const last = messages.at(-1);
  if (last?.role !== "tool") {
    if (/postcard/i.test(last?.content ?? ""))
      return { tool_calls: [{ name: "send_postcard", arguments: DEMO_POSTCARD }] };
    return { tool_calls: DEMO_CITIES.map((city) => ({ name: "weather", arguments: { city } })) };
  }
  const asked = messages.findLastIndex((m) => m.role === "assistant" && m.tool_calls?.length);
  const answers = messages
    .slice(asked + 1)
    .filter((m) => m.role === "tool")
    .map((m) => m.content ?? "");
  const question = messages.slice(0, asked).findLast((m) => m.role === "user")?.content ?? "";
  return {
    content: `You asked: ${question}\n${answers.join("\n")}\n(${answers.length} tool calls, run at the same time by fanout)`,
  };
}

/** @param {ServerResponse} res @param {number} status @param {unknown} value */
const json = (res, status, value) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

/**
 * The fake's routes, as a handler that answers a request when it is one of them.
 * @param {{ prefix?: string }} [options] where the OpenAI-compatible API lives (its `base_url`)
 * @returns {(url: URL, req: import("node:http").IncomingMessage, res: ServerResponse, body: string) => boolean}
 */
export function fakeLlm({ prefix = "/llm/v1" } = {}) {
  /** @type {Map<string, ScriptedReply[]>} */
  const scripts = new Map();
  /** @type {Map<string, unknown[]>} */
  const requests = new Map();
  /** Requests per model being answered now, and the most at once. */
  const inFlight = new Map();
  const maxInFlight = new Map();
  /** Requests per model whose caller closed the connection before the reply was sent. */
  const dropped = new Map();
  let seq = 0;

  return function handle(url, req, res, body) {
    if (url.pathname === "/__llm/script") {
      const { model, replies } = /** @type {{ model: string, replies: ScriptedReply[] }} */ (JSON.parse(body));
      scripts.set(model, [...replies]);
      requests.set(model, []);
      res.writeHead(204).end();
      return true;
    }
    if (url.pathname === "/__llm/concurrency") {
      json(res, 200, { max_in_flight: maxInFlight.get(url.searchParams.get("model") ?? "") ?? 0 });
      return true;
    }
    if (url.pathname === "/__llm/dropped") {
      json(res, 200, { dropped: dropped.get(url.searchParams.get("model") ?? "") ?? 0 });
      return true;
    }
    if (url.pathname === "/__llm/requests") {
      json(res, 200, requests.get(url.searchParams.get("model") ?? "") ?? []);
      return true;
    }
    if (url.pathname !== `${prefix}/chat/completions`) return false;
    if (req.method !== "POST") return (json(res, 405, { error: { message: "POST a chat-completions request" } }), true);
    /** @type {ChatRequest} */
    let request;
    try {
      request = JSON.parse(body);
    } catch {
      return (json(res, 400, { error: { message: "the body is not JSON" } }), true);
    }
    // Trace context as the request carried it, beside the body (tests of traces read it).
    const trace = { traceparent: req.headers.traceparent, tracestate: req.headers.tracestate };
    requests.set(request.model, [...(requests.get(request.model) ?? []), { ...request, received_trace: trace }]);
    const now = (inFlight.get(request.model) ?? 0) + 1;
    inFlight.set(request.model, now);
    maxInFlight.set(request.model, Math.max(maxInFlight.get(request.model) ?? 0, now));
    res.once("close", () => {
      inFlight.set(request.model, inFlight.get(request.model) - 1);
      if (!res.writableFinished) dropped.set(request.model, (dropped.get(request.model) ?? 0) + 1);
    });
    const script = scripts.get(request.model);
    const reply =
      script?.shift() ??
      (!script && request.model === DEMO_MODEL ? demoReply(request.messages ?? []) : { content: "(script finished)" });
    const authorization = req.headers.authorization ?? "";
    /** @param {string} text */
    const echo = (text) =>
      text
        .replaceAll("{{authorization}}", authorization)
        .replaceAll("{{authorization_base64}}", Buffer.from(authorization).toString("base64"))
        .replaceAll("{{authorization_json}}", jsonEscaped(authorization))
        .replaceAll("{{authorization_html}}", authorization.replaceAll("/", "&#47;").replaceAll("+", "&#x2b;"));
    const send = () => {
      if (reply.status) return json(res, reply.status, { error: { message: `scripted ${reply.status}` } });
      const tool_calls = reply.tool_calls?.map((c) => ({
        id: `call_${++seq}`,
        type: "function",
        function: {
          name: c.name,
          arguments: echo(typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments)),
        },
      }));
      json(res, 200, {
        id: `chatcmpl-${++seq}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            finish_reason: tool_calls ? "tool_calls" : "stop",
            message: {
              role: "assistant",
              content: reply.content === undefined ? null : echo(reply.content),
              ...(tool_calls ? { tool_calls } : {}),
            },
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    };
    if (reply.delay_ms) {
      const timer = setTimeout(send, reply.delay_ms);
      res.once("close", () => clearTimeout(timer)); // nobody to answer any more
    } else send();
    return true;
  };
}
