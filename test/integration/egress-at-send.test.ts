/**
 * The egress rules at send time (docs/api.md#outbound-urls): no outbound request follows a redirect, and a URL
 * accepted when the config was stored is checked again before every request. Here for the LLM a
 * child chat calls, MCP servers and Telegram; tool and webhook sends have theirs beside their other
 * tests (tools, executor-races, deliveries), and the fetch itself in unit/egress-fetch.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { swapEnv } from "../faults";
import {
  agentConfig,
  call,
  chatObject,
  configure,
  eventually,
  llmRequests,
  parallel,
  scriptLlm,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(() => reset());

const sub = (message: string, more: Record<string, unknown> = {}) => call("call_subordinate", { message, ...more });

/** Every request the fake servers recorded whose path starts with `prefix`. */
async function requestsTo(prefix: string): Promise<{ method: string; path: string }[]> {
  const calls = (await (await fetch(`${toolServer()}/__calls`)).json()) as { method: string; path: string }[];
  return calls.filter((c) => c.path.startsWith(prefix));
}

describe("the LLM client", () => {
  it.for([301, 302, 303, 307, 308])(
    "takes a %i from the provider as its answer: the job ends error, the target is never asked",
    async (code) => {
      const token = `llm-${code}-${crypto.randomUUID()}`;
      await configure(
        agentConfig("m-moved", {
          llm: { base_url: `${toolServer()}/moved/${code}/${token}/v1`, model: "m-moved", api_key: "sk-test" },
        }),
      );
      const { body } = await parallel(`lr${code}`, { tool_calls: [sub("Anything.", { reset: true })], timeout: 20 });
      expect(body.jobs[0].state).toBe("error");
      expect(body.jobs[0].error).toBe(
        `LLM provider error: HTTP ${code}: the provider redirected to ${new URL(toolServer()).origin}/landed/${token}/v1/chat/completions, ` +
          "and redirects are not followed; set llm.base_url to the final URL.",
      );
      expect(await requestsTo(`/moved/${code}/${token}/`)).toHaveLength(1); // asked once: a 3xx is not retried
      expect(await requestsTo(`/landed/${token}/`)).toEqual([]);
    },
  );

  it("does not call a base_url stored while allowed once the rules refuse it: the job ends error, nothing sent", async () => {
    await configure(agentConfig("m-refused"));
    await scriptLlm("m-refused", [{ content: "first answer" }, { content: "must not be asked" }]);
    const first = await parallel("lr1", { tool_calls: [sub("First.", { reset: true })], timeout: 20 });
    expect(first.body.jobs[0]).toMatchObject({ state: "success", result: "first answer" });
    const child = first.body.jobs[0].context_id as string;

    // The stored http://127.0.0.1 base_url was accepted under ALLOW_PRIVATE_EGRESS=true; the child now runs without it.
    await swapEnv(chatObject(child), () => ({ ALLOW_PRIVATE_EGRESS: "false" }));
    const again = await parallel("lr1", { tool_calls: [sub("Again.", { context_id: child })], timeout: 20 });
    expect(again.body.jobs[0]).toMatchObject({
      state: "error",
      error: "The LLM base_url must use https:; outbound requests there are not allowed.",
    });
    expect(await llmRequests("m-refused")).toHaveLength(1);
  });
});

describe("the MCP client", () => {
  it("takes a 307 from the server as its answer: the server is unavailable, the target is never asked", async () => {
    const token = `mcp-307-${crypto.randomUUID()}`;
    await configure(
      toolConfig({ mcp_servers: [{ name: "docs", url: `${toolServer()}/moved/307/${token}/mcp/moved`, headers: {} }] }),
    );
    const { status, body } = await parallel("mr1", { tool_calls: [call("docs__search", { query: "x" })] });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({ code: "mcp_unavailable", server: "docs" });
    expect(body.error.message).toContain("HTTP 307");
    expect(await requestsTo(`/landed/${token}/`)).toEqual([]);
  });
});

describe("Telegram notifications", () => {
  it("are not sent to an api_base_url stored while allowed once the rules refuse it: failed at once, not retried", async () => {
    const model = "m-tg-refused";
    await configure(
      agentConfig(model, { telegram: { bot_token: "123:refused", api_base_url: `${toolServer()}/telegram` } }),
    );
    await scriptLlm(model, [{ content: "done" }]);
    // The chat that sends the note runs without ALLOW_PRIVATE_EGRESS from its first request on.
    await swapEnv(chatObject("tr1"), () => ({ ALLOW_PRIVATE_EGRESS: "false" }));
    const notify = encodeURIComponent(JSON.stringify({ telegram_chat_id: 5151 }));
    const { body } = await parallel(
      "tr1",
      { tool_calls: [call("spawn_task", { task: "Anything", wait: true })], timeout: 20 },
      { query: `?notify=${notify}` },
    );
    expect(body.jobs[0].state).toBe("success");
    const note = await eventually(() =>
      runInDurableObject(chatObject("tr1"), (_i, state) => {
        const row = state.storage.sql.exec("SELECT status, attempts, last_error FROM notifications").toArray()[0];
        return row?.status === "failed" ? row : undefined;
      }),
    );
    expect(note).toEqual({
      status: "failed",
      attempts: 1,
      last_error: "The Telegram api_base_url must use https:; outbound requests there are not allowed.",
    });
    expect(await (await fetch(`${toolServer()}/__telegram/messages?chat_id=5151`)).json()).toEqual([]);
  });
});
