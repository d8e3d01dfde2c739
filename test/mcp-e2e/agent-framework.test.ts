/**
 * An agent framework end to end: the AI SDK's MCP client hands fanout every tool call its agent
 * makes, under `wrangler dev`, with the test kit's scripted model. The agent calls two tools
 * through fanout in one step, one of them under an approval rule a person decides on fanout's
 * own route while the call waits.
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { api, auth, chat, mcpUrl, startKit } from "./fanout";

let kit: Awaited<ReturnType<typeof startKit>>;
const booked: string[] = [];

beforeAll(async () => {
  kit = await startKit(
    {
      search: {
        description: "Search flights.",
        read_only: true,
        run: ({ q }: { q: string }) => `TP123 to ${q}, 89 EUR`,
      },
      book: {
        description: "Book a flight.",
        parameters: { type: "object", properties: { flight: { type: "string" } }, required: ["flight"] },
        run: ({ flight }: { flight: string }) => {
          booked.push(flight);
          return `booked ${flight}`;
        },
      },
    },
    { approvals: [{ tools: ["book"] }] },
  );
});
afterAll(() => kit?.close());

it("runs an AI SDK agent's two calls as fanout jobs, the booking only once a person approved it", async () => {
  const id = chat("ai-sdk");
  kit.model
    .callTools([
      { name: "search", args: { q: "Lisbon" } },
      { name: "book", args: { flight: "TP123" } },
    ])
    .reply("Booked TP123 to Lisbon.");
  const mcp = await createMCPClient({ transport: { type: "http", url: mcpUrl(id), headers: auth() } });
  const model = createOpenAICompatible({ name: "kit", baseURL: kit.model.openaiBaseUrl, apiKey: "fake-key" });
  const tools = await mcp.tools();
  expect(Object.keys(tools)).toEqual(expect.arrayContaining(["search", "book"]));

  // A person approves the booking while the agent's call waits for it.
  const approving = (async () => {
    for (;;) {
      const { approvals } = await api("/v1/approvals?status=pending");
      const mine = approvals.find((a: { chat_id: string }) => a.chat_id === id);
      if (mine) {
        expect(booked).toEqual([]); // nothing was sent to the tool before the decision
        return api(`/v1/chats/${id}/jobs/${mine.job_id}/approval`, { decision: "approve", by: "ops" });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const { text, steps } = await generateText({
    model: model("fake-model"),
    tools,
    stopWhen: stepCountIs(3),
    prompt: "Find a flight to Lisbon and book it.",
  });
  await approving;
  await mcp.close();

  expect(text).toBe("Booked TP123 to Lisbon.");
  const results = steps.flatMap((s) => s.toolResults);
  expect(results.map((r) => r.toolName).sort()).toEqual(["book", "search"]);
  expect(booked).toEqual(["TP123"]);
  // The model read each result as fanout's job text.
  const second = kit.model.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content));
  expect(second.join(" ")).toContain("TP123 to Lisbon, 89 EUR");
  expect(second.join(" ")).toContain("booked TP123");
  const records = await api(`/v1/chats/${id}/job-records`);
  expect(records.records.map((r: { state: string }) => r.state)).toEqual(["success", "success"]);
  expect(records.records.find((r: { tool_name: string }) => r.tool_name === "book").approval.by).toBe("ops");
});
