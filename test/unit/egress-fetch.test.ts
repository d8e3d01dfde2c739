/**
 * The fetch every outbound request goes through (docs/api.md#outbound-urls): the egress rules are checked at
 * send time, and no request follows a redirect. The underlying fetch is a fake that records what
 * it was asked, so "not contacted" means exactly that.
 */
import { describe, expect, inject, it } from "vitest";
import { complete, LlmError } from "../../src/core/agents/llm";
import { EgressRefused, egressFetch, egressRefusal, type Fetch } from "../../src/core/egress/fetch";
import { sendTelegram } from "../../src/core/notify/telegram";
import { serverFetch } from "../../src/core/tools/mcp-client";

/** A fetch that answers `answer` and records each request it was handed. */
function recording(answer: () => Response = () => new Response("ok")) {
  const seen: { url: string; redirect: string | undefined }[] = [];
  const send: Fetch = async (input, init) => {
    seen.push({ url: input instanceof Request ? input.url : String(input), redirect: init?.redirect });
    return answer();
  };
  return { seen, send };
}

describe("egressFetch", () => {
  it.each([
    ["http://tools.example/x", false, "must use https:"],
    ["https://127.0.0.1/x", false, "points at a non-public address (loopback)"],
    ["https://localhost./x", false, "points at localhost"],
    ["https://[2002:7f00:1::]/x", false, "points at a non-public address (loopback, in 6to4 form)"],
    ["https://198.18.0.1/x", false, "points at a non-public address (reserved, documentation or benchmarking)"],
    ["ftp://tools.example/x", true, "must be an http(s) URL"],
  ])("refuses %s (private egress allowed: %s) without contacting it", async (url, allowPrivate, problem) => {
    const { seen, send } = recording();
    const refused = await egressFetch(allowPrivate, send)(url).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EgressRefused);
    expect((refused as EgressRefused).problem).toBe(problem);
    expect(seen).toEqual([]);
  });

  it("checks a Request's URL the same way", async () => {
    const { seen, send } = recording();
    await expect(egressFetch(false, send)(new Request("https://10.0.0.1/x"))).rejects.toBeInstanceOf(EgressRefused);
    expect(seen).toEqual([]);
  });

  it("never lets a request follow a redirect, whatever the caller asked", async () => {
    const { seen, send } = recording();
    const guarded = egressFetch(false, send);
    await guarded("https://tools.example/a");
    await guarded("https://tools.example/b", { redirect: "follow" });
    await guarded(new Request("https://tools.example/c", { redirect: "follow" }));
    expect(seen).toEqual([
      { url: "https://tools.example/a", redirect: "manual" },
      { url: "https://tools.example/b", redirect: "manual" },
      { url: "https://tools.example/c", redirect: "manual" },
    ]);
  });

  it("hands back a 3xx as the answer and makes no second request", async () => {
    const { seen, send } = recording(
      () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } }),
    );
    const res = await egressFetch(false, send)("https://tools.example/x");
    expect(res.status).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it("allows http: and private hosts when private egress is allowed", async () => {
    const { seen, send } = recording();
    await egressFetch(true, send)("http://127.0.0.1:8787/x");
    expect(seen).toEqual([{ url: "http://127.0.0.1:8787/x", redirect: "manual" }]);
  });

  it("names no URL in its error: a Telegram URL carries the bot token", async () => {
    const refused = await egressFetch(false)("http://api.telegram.example/bot123:secret/sendMessage").catch(
      (e: Error) => e,
    );
    expect((refused as Error).message).toBe("Outbound request refused: its URL must use https:.");
  });

  it("recognises a refusal a client wrapped in its own error", () => {
    const refusal = new EgressRefused("must use https:");
    expect(egressRefusal(refusal)).toBe(refusal);
    expect(
      egressRefusal(new Error("Connection error.", { cause: new TypeError("fetch failed", { cause: refusal }) })),
    ).toBe(refusal);
    expect(egressRefusal(new Error("Connection error."))).toBeUndefined();
    expect(egressRefusal("not an error")).toBeUndefined();
  });
});

describe("serverFetch (an MCP server's transport)", () => {
  it("reaches the server's own URL only: the SDK's own following of a same-origin redirect is refused", async () => {
    const { seen, send } = recording();
    const fetchFor = serverFetch("https://mcp.example/mcp", false, send);
    await fetchFor(new URL("https://mcp.example/mcp"), { method: "POST" });
    const followed = await fetchFor(new URL("https://mcp.example/elsewhere"), { method: "GET" }).catch(
      (e: unknown) => e,
    );
    expect(followed).toBeInstanceOf(EgressRefused);
    expect(seen).toEqual([{ url: "https://mcp.example/mcp", redirect: "manual" }]);
  });

  it("checks the egress rules at send time like every other request", async () => {
    const { seen, send } = recording();
    await expect(serverFetch("http://127.0.0.1:9/mcp", false, send)("http://127.0.0.1:9/mcp")).rejects.toBeInstanceOf(
      EgressRefused,
    );
    expect(seen).toEqual([]);
  });
});

describe("send-time refusals of a URL stored while allowed", () => {
  const server = () => inject("toolServer");

  it("the LLM: no request leaves, the error says why", async () => {
    const model = `m-unit-refused-${crypto.randomUUID()}`;
    const target = { base_url: `${server()}/llm/v1`, model, api_key: "sk-test", secrets: [] };
    const refused = await complete(target, { messages: [{ role: "user", content: "hi" }], tools: [] }, false).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as Error).message).toBe(
      "The LLM base_url must use https:; outbound requests there are not allowed.",
    );
    const asked = (await (await fetch(`${server()}/__llm/requests?model=${model}`)).json()) as unknown[];
    expect(asked).toEqual([]);
  });

  it("Telegram: no request leaves, the attempt is marked refused so it is not retried", async () => {
    const chatId = `unit-refused-${crypto.randomUUID()}`;
    const target = { api_base_url: `${server()}/telegram`, bot_token: "123:unit", secrets: [] };
    const result = await sendTelegram(target, chatId, "hello", new AbortController().signal, false);
    expect(result).toEqual({
      status: null,
      error: "The Telegram api_base_url must use https:; outbound requests there are not allowed.",
      refused: true,
    });
    const sent = (await (await fetch(`${server()}/__telegram/messages?chat_id=${chatId}`)).json()) as unknown[];
    expect(sent).toEqual([]);
    // The same send with private egress allowed does arrive: the refusal above is the rule, not the fake.
    expect((await sendTelegram(target, chatId, "hello", new AbortController().signal, true)).status).toBe(200);
    expect(await (await fetch(`${server()}/__telegram/messages?chat_id=${chatId}`)).json()).toHaveLength(1);
  });
});
