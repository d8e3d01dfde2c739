/**
 * Every client method throws a `TypeError` on a key it does not know, before anything is sent: in
 * JavaScript a misspelt option would otherwise be dropped and the call run as if never said.
 */
import { describe, expect, it } from "vitest";
import { Fanout } from "../src/index.js";

/** A client whose fetch records what would have been sent and answers nothing useful. */
function offline() {
  const sent: string[] = [];
  const fanout = new Fanout({
    url: "http://127.0.0.1:9",
    apiKey: "k",
    attempts: 1,
    fetch: async (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response("{}", { status: 500 });
    },
  });
  return { fanout, sent };
}

const calls = [{ id: "call_a", type: "function" as const, function: { name: "echo", arguments: "{}" } }];

describe("unknown keys", () => {
  it("toolCalls: a misspelt `wait` throws, names the key meant, and sends nothing", () => {
    const { fanout, sent } = offline();
    const misspelt = { tool_calls: calls, wiat: false } as never;
    expect(() => fanout.toolCalls("c", misspelt)).toThrow(TypeError);
    expect(() => fanout.toolCalls("c", misspelt)).toThrow(
      /^toolCalls: the calls' body has no `wiat`\. Did you mean `wait`\?/,
    );
    expect(sent).toEqual([]);
  });

  it("toolCalls: a key sent in the wrong argument is told where it goes", () => {
    const { fanout } = offline();
    expect(() => fanout.toolCalls("c", { tool_calls: calls, metadata: { user: 1 } } as never)).toThrow(
      "`metadata` goes in the options (the third argument): toolCalls(chat, calls, { … })",
    );
    expect(() => fanout.toolCalls("c", { tool_calls: calls }, { wait: false } as never)).toThrow(
      "`wait` goes in the calls' body (the second argument)",
    );
  });

  it("every method refuses an option it does not know, before sending anything", () => {
    const { fanout, sent } = offline();
    const bogus = { sginal: undefined } as never;
    const tried: Array<[string, () => unknown]> = [
      ["parallel", () => fanout.parallel("c", { tool_calls: [] }, bogus)],
      ["spawn", () => fanout.spawn("c", { message: "hi" } as never, bogus)],
      ["toolCalls", () => fanout.toolCalls("c", calls, bogus)],
      ["awaitJobs", () => fanout.awaitJobs("c", ["j"], bogus)],
      ["collect", () => fanout.collect("c", ["j"], bogus)],
      ["cancel", () => fanout.cancel("c", ["j"], bogus)],
      ["jobs", () => fanout.jobs("c", bogus)],
      ["job", () => fanout.job("c", "j", bogus)],
      ["batch", () => fanout.batch("c", "b", bogus)],
      ["chat", () => fanout.chat("c", bogus)],
      ["transcript", () => fanout.transcript("c", bogus)],
      ["usage", () => fanout.usage("c", bogus)],
      ["chats", () => fanout.chats(bogus)],
      ["deliveries", () => fanout.deliveries("c", "failed", bogus)],
      ["redeliver", () => fanout.redeliver("c", "e", bogus)],
      ["testWebhook", () => fanout.testWebhook(bogus)],
      ["tools", () => fanout.tools(undefined, bogus)],
      ["flow", () => fanout.flow(bogus)],
      ["telemetry", () => fanout.telemetry(bogus)],
      ["mcpUrl", () => fanout.mcpUrl("c", bogus)],
      ["rerun", () => fanout.rerun("c", "b", {}, bogus)],
      ["approve", () => fanout.approve("c", "j", bogus)],
      ["deny", () => fanout.deny("c", "j", bogus)],
      ["approvals", () => fanout.approvals(bogus)],
      ["config", () => fanout.config(bogus)],
      ["patchConfig", () => fanout.patchConfig({}, bogus)],
      ["putConfig", () => fanout.putConfig({} as never, bogus)],
      ["events", () => fanout.events("c", bogus)],
    ];
    for (const [method, call] of tried) {
      // mcpUrl takes no signal: it only builds a URL.
      const meant = method === "mcpUrl" ? "It takes `agent`" : "Did you mean `signal`?";
      expect(call, method).toThrow(`${method}: options has no \`sginal\`. ${meant}`);
    }
    // The methods the class has are all tried (a new one needs its line here).
    const methods = Object.getOwnPropertyNames(Fanout.prototype).filter((m) => m !== "constructor");
    expect(methods.sort()).toEqual(tried.map(([m]) => m).sort());
    expect(sent).toEqual([]);
  });

  it("rerun's arguments and the constructor's options are checked too; known keys pass", async () => {
    const { fanout } = offline();
    expect(() => fanout.rerun("c", "b", { job: ["j"] } as never)).toThrow("Did you mean `jobs`?");
    expect(() => fanout.rerun("c", "b", { metadata: {} } as never)).toThrow("`metadata` goes in the options");
    expect(() => new Fanout({ url: "http://x", apiKey: "k", retries: 2 } as never)).toThrow(
      /^new Fanout: options has no `retries`\. It takes `url`, `apiKey`, `fetch`, `attempts`, `WebSocket`\./,
    );
    expect(fanout.mcpUrl("c", { agent: "a" })).toContain("agent=a");
    // Known keys, undefined ones included, go through to the request.
    await expect(
      fanout.toolCalls("c", { tool_calls: calls, wait: false, context: {} }, { metadata: {}, signal: undefined }),
    ).rejects.not.toBeInstanceOf(TypeError);
  });
});
