/**
 * Request metadata (docs/api.md#request-metadata): a JSON object a bot attaches to a batch with
 * `?metadata=` or the Fanout-Metadata header comes back in every event and record of the batch and
 * of what its subordinates start, never in a payload a model reads, and never from tool arguments.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { agentConfig, api, call, configure, eventually, json, llmRequests, parallel, scriptLlm } from "../helpers";
import { inbox, received, webhookConfig } from "../webhook-inbox";

afterEach(() => reset());

// "!" is outside the alphabet of generated ids: an id can never contain the value by chance.
const META = { telegram_chat_id: 42, user_id: "u7!" };
const q = (m: unknown) => `?metadata=${encodeURIComponent(JSON.stringify(m))}`;
const events = async (name: string) =>
  (await received(name)).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });

describe("request metadata", () => {
  it("comes back in every event of the batch and in its job records, not in the answer a model reads", async () => {
    const url = await inbox("meta-1");
    await configure(webhookConfig(url));
    const res = await parallel(
      "meta-1",
      { tool_calls: [call("echo", { a: 1 }), call("echo", { a: 2 })] },
      { query: q(META) },
    );
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain("u7!");
    const got = await eventually(async () => {
      const list = await events("meta-1");
      return list.some((e) => e.type === "batch.finished") ? list : undefined;
    });
    const ofBatch = got.filter((e) => e.type.startsWith("job.") || e.type === "batch.finished");
    expect(ofBatch.map((e) => e.type).sort()).toEqual([
      "batch.finished",
      "job.finished",
      "job.finished",
      "job.started",
      "job.started",
    ]);
    for (const e of ofBatch) expect(e.data.metadata).toEqual(META);
    // What the model is handed inside batch.finished is the same answer: no metadata in it.
    expect(JSON.stringify(got.find((e) => e.type === "batch.finished")!.data.results)).not.toContain("u7!");
    expect(got.find((e) => e.type === "chat.created")!.data).not.toHaveProperty("metadata");

    const record = await json(await api(`/v1/chats/meta-1/jobs/${res.body.jobs[0].job_id}`));
    expect(record.metadata).toEqual(META);
    const page = await json(await api("/v1/chats/meta-1/job-records"));
    expect(page.records.map((r: any) => r.metadata)).toEqual([META, META]);
  });

  it("is read from the Fanout-Metadata header too, and a batch without any has null in its records", async () => {
    await configure(webhookConfig(await inbox("meta-2")));
    const withHeader = await parallel(
      "meta-2",
      { tool_calls: [call("echo")] },
      { headers: { "fanout-metadata": JSON.stringify({ route: "slack" }) } },
    );
    const without = await parallel("meta-2", { tool_calls: [call("echo")] });
    expect((await json(await api(`/v1/chats/meta-2/jobs/${withHeader.body.jobs[0].job_id}`))).metadata).toEqual({
      route: "slack",
    });
    expect((await json(await api(`/v1/chats/meta-2/jobs/${without.body.jobs[0].job_id}`))).metadata).toBeNull();
  });

  it("is refused with a 400 that says what to send, and the refused request starts nothing", async () => {
    await configure();
    const cases: [string, Record<string, string>, RegExp][] = [
      [q([1, 2]), {}, /must be a JSON object/],
      ["?metadata=%7Bnope", {}, /not JSON/],
      [q({ text: "x".repeat(2100) }), {}, /at most 2048/],
      [q(META), { "fanout-metadata": JSON.stringify(META) }, /not both/],
    ];
    for (const [query, headers, message] of cases) {
      const res = await parallel("meta-3", { tool_calls: [call("echo")] }, { query, headers });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_metadata");
      expect(res.body.error.message).toMatch(message);
    }
    expect((await api("/v1/chats/meta-3")).status).toBe(404);
  });

  it("cannot be written by a model: a `metadata` key in the tool arguments is refused", async () => {
    await configure();
    const res = await parallel("meta-4", { tool_calls: [call("echo")], metadata: META });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("option_not_allowed_in_tool_args");
  });

  it("is part of what an Idempotency-Key covers: the same key with other metadata is a 409", async () => {
    await configure();
    const headers = { "idempotency-key": "meta-5" };
    expect((await parallel("meta-5", { tool_calls: [call("echo")] }, { query: q(META), headers })).status).toBe(200);
    const other = await parallel("meta-5", { tool_calls: [call("echo")] }, { query: q({ user_id: "u8" }), headers });
    expect(other.status).toBe(409);
  });

  it("goes with a /tool-calls batch too", async () => {
    await configure();
    const res = await api(`/v1/chats/meta-6/tool-calls${q(META)}`, {
      body: { tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: "{}" } }] },
    });
    const answer = await json(res);
    expect(JSON.stringify(answer)).not.toContain("u7!");
    expect((await json(await api(`/v1/chats/meta-6/jobs/${answer.results[0].job_id}`))).metadata).toEqual(META);
  });

  it("is inherited by what a subordinate starts, and never reaches its model", async () => {
    const url = await inbox("meta-7");
    await configure(
      agentConfig("m-meta", {
        webhook: { url, secret: "whsec_dGVzdC13ZWJob29rLXNlY3JldC0xMjM0NTY3OA==", include_child_chats: true },
      }),
    );
    await scriptLlm("m-meta", [{ tool_calls: [{ name: "echo", arguments: { q: "x" } }] }, { content: "done" }]);
    const res = await parallel(
      "meta-7",
      { tool_calls: [call("call_subordinate", { message: "Look it up.", reset: true })], timeout: 20 },
      { query: q(META) },
    );
    expect(res.body.jobs[0]).toMatchObject({ state: "success", result: "done" });
    const child = res.body.jobs[0].context_id as string;
    const records = await json(await api(`/v1/chats/${child}/job-records`));
    expect(records.records).toHaveLength(1);
    expect(records.records[0]).toMatchObject({ tool_name: "echo", metadata: META });
    const got = await eventually(async () => {
      const list = await events("meta-7");
      return list.filter((e) => e.type === "batch.finished").length >= 2 ? list : undefined;
    });
    for (const e of got.filter(
      (e) => e.type.startsWith("subagent.") || (e.type.startsWith("job.") && e.data.chat_id === child),
    )) {
      expect(e.data.metadata).toEqual(META);
    }
    expect(got.filter((e) => e.type === "subagent.started" || e.type === "subagent.finish")).toHaveLength(2);
    expect(got.filter((e) => e.type === "job.finished" && e.data.chat_id === child)).toHaveLength(1);
    for (const request of await llmRequests("m-meta")) expect(JSON.stringify(request)).not.toContain("u7!");
  });
});
