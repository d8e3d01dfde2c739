/**
 * The scripted model: subagents take their turns from it through fanout's `llm`,
 * and the bot's own SDK clients (openai, @anthropic-ai/sdk) talk to it as they
 * would to the provider.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFanout, type TestFanout } from "../src/index.js";

let fanout: TestFanout;

beforeAll(async () => {
  fanout = await startFanout({
    tools: { search: { read_only: true, run: ({ q }: { q: string }) => `3 results for ${q}` } },
    config: { agents: { planner: { description: "Plans.", model: "planner-model" } } },
  });
});
afterAll(() => fanout.stop());
beforeEach(() => expect(fanout.model.pending).toBe(0));

const spawned = async (chat: string, args: Parameters<TestFanout["client"]["spawn"]>[1]) => {
  const answer = await fanout.client.spawn(chat, { ...args, wait: true });
  if (answer.status === "started") throw new Error("a waited spawn answers results");
  return answer.jobs[0]!;
};

describe("a subagent's model", () => {
  it("takes the queued turns: its tool calls run in fanout, and its last text is the result", async () => {
    fanout.model.callTools([{ name: "search", args: { q: "otters" } }]).reply("Otters hold hands.");
    const job = await spawned("model-1", { task: "Find a fact about otters." });
    expect(job).toMatchObject({ state: "success", result: "Otters hold hands." });
    const [first, second] = fanout.model.requests.slice(-2);
    expect(first).toMatchObject({ api: "openai", model: "fake-model" });
    expect(first!.tools).toContain("search");
    expect(first!.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining("Find a fact about otters."),
    });
    expect(second!.messages.at(-1)).toMatchObject({
      role: "tool",
      content: expect.stringContaining("3 results for otters"),
    });
  });

  it("gives a turn queued for a model name only to requests for that model", async () => {
    fanout.model.reply("Any model's turn.").reply("The plan: step one.", { model: "planner-model" });
    const job = await spawned("model-2", { task: "Plan it.", agent: "planner" });
    expect(job.result).toBe("The plan: step one.");
    expect(fanout.model.pending).toBe(1);
    expect((await spawned("model-3", { task: "Anything." })).result).toBe("Any model's turn.");
  });

  it("refuses a request with no turn queued, saying what to queue", async () => {
    const job = await spawned("model-4", { task: "Nothing scripted." });
    expect(job.state).toBe("error");
    expect(job.error).toMatch(
      /no turn queued for model 'fake-model': call model\.reply\(text\) or model\.callTools\(calls\)/,
    );
  });
});

describe("turns matched to a conversation", () => {
  it("two conversations at once each take their own turns: by chat, by text, by a function", async () => {
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: fanout.model.openaiBaseUrl, maxRetries: 0 });
    fanout.model
      .when({ chat_id: "user-b" })
      .reply("For B.")
      .when({ contains: "otters" })
      .reply("About otters.")
      .when((request) => request.model === "gpt-c")
      .callTools([{ name: "search", args: { q: "c" } }])
      .reply("In order.");
    const ask = (model: string, content: string, user?: string) =>
      openai.chat.completions.create({ model, messages: [{ role: "user", content }], ...(user ? { user } : {}) });
    // Asked in the opposite order to the script, all at once.
    const [plain, c, otters, b] = await Promise.all([
      ask("gpt-test", "hello"),
      ask("gpt-c", "anything"),
      ask("gpt-test", "tell me about otters"),
      ask("gpt-test", "hi", "user-b"),
    ]);
    expect(plain.choices[0]!.message.content).toBe("In order.");
    expect(c.choices[0]!.message.tool_calls![0]).toMatchObject({ function: { name: "search" } });
    expect(otters.choices[0]!.message.content).toBe("About otters.");
    expect(b.choices[0]!.message.content).toBe("For B.");
    expect(fanout.model.requests.find((r) => r.chat_id === "user-b")?.messages[0]).toMatchObject({ content: "hi" });
  });

  it("a matched turn nobody asks for is never taken by another request, and the refusal says so", async () => {
    const anthropic = new Anthropic({ apiKey: "k", baseURL: fanout.model.url, maxRetries: 0 });
    fanout.model.when({ chat_id: "nobody" }).reply("never");
    await expect(
      anthropic.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "x" }] }),
    ).rejects.toThrow(/no turn queued for model 'claude-test' \(1 queued for other requests: check their when/);
    const mine = await anthropic.messages.create({
      model: "claude-test",
      max_tokens: 10,
      messages: [{ role: "user", content: "x" }],
      metadata: { user_id: "nobody" },
    });
    expect(mine.content).toEqual([{ type: "text", text: "never" }]);
  });
});

describe("strict scripted calls", () => {
  it("throws on a key a call does not take, naming the one meant, and queues nothing", () => {
    expect(() => fanout.model.callTools([{ name: "search", arguments: { q: "x" } } as never])).toThrow(
      "callTools: unknown key `arguments`. Did you mean `args`? It takes `name`, `args`, `id`.",
    );
    expect(() => fanout.model.when({ contains: "x" }).callTools([{ tool_name: "search" } as never])).toThrow(
      "when(…).callTools: unknown key `tool_name`. Did you mean `name`?",
    );
    expect(() => fanout.model.callTools([{ name: "search", args: '{"q":"x"}' as never }])).toThrow(
      "`args` of a call is an object (the arguments themselves, not JSON text)",
    );
    expect(() => fanout.model.when({ chat: "x" } as never)).toThrow("when(match): unknown key `chat`.");
    expect(fanout.model.pending).toBe(0);
  });
});

describe("reset", () => {
  it("drops the turns not taken and forgets the requests, so one test's script never answers the next", async () => {
    fanout.model.reply("left over from an earlier test");
    fanout.model.reset();
    expect(fanout.model.requests).toEqual([]);
    fanout.model.reply("this test's turn");
    expect((await spawned("model-5", { task: "Say it." })).result).toBe("this test's turn");
    expect(fanout.model.requests).toHaveLength(1);
  });
});

describe("the bot's own model client", () => {
  it("openai: tool calls with ids, then text; a scripted failure is the status the SDK sees", async () => {
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: fanout.model.openaiBaseUrl, maxRetries: 0 });
    fanout.model
      .callTools([
        { name: "search", args: { q: "a" } },
        { name: "search", args: { q: "b" }, id: "call_mine" },
      ])
      .reply("Done.")
      .fail(429, "slow down");
    const first = (
      await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "go" }] })
    ).choices[0]!;
    expect(first.finish_reason).toBe("tool_calls");
    expect(
      first.message.tool_calls!.map(
        (c) => c.type === "function" && [c.id.startsWith("call_"), c.function.name, JSON.parse(c.function.arguments)],
      ),
    ).toEqual([
      [true, "search", { q: "a" }],
      [true, "search", { q: "b" }],
    ]);
    expect(first.message.tool_calls![1]!.id).toBe("call_mine");
    expect(
      (await openai.chat.completions.create({ model: "gpt-test", messages: [] })).choices[0]!.message.content,
    ).toBe("Done.");
    await expect(openai.chat.completions.create({ model: "gpt-test", messages: [] })).rejects.toMatchObject({
      status: 429,
    });
  });

  it("@anthropic-ai/sdk: tool_use blocks beside the text, then end_turn", async () => {
    const anthropic = new Anthropic({ apiKey: "sk-ant-test", baseURL: fanout.model.url, maxRetries: 0 });
    fanout.model
      .callTools([{ name: "search", args: { q: "c" } }], { text: "Searching.", usage: { input: 120, output: 7 } })
      .reply("Found it.");
    const first = await anthropic.messages.create({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content.map((b) => b.type)).toEqual(["text", "tool_use"]);
    expect(first.content[1]).toMatchObject({ type: "tool_use", name: "search", input: { q: "c" } });
    expect(first.usage).toMatchObject({ input_tokens: 120, output_tokens: 7 });
    const second = await anthropic.messages.create({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    expect(second).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "Found it." }] });
    expect(fanout.model.requests.at(-1)).toMatchObject({ api: "anthropic", model: "claude-test" });
  });
});
