/**
 * Every name a request carries is bounded (docs/api.md#names-and-agent-profiles): a call's tool
 * name, an agent or profile name, a label and a `context_id` of more than 128 characters are
 * refused, error texts quote at most 64 characters of a name, and of an id or key a request names,
 * no row fanout writes passes 1 MB, and a write that fails leaves no half-created chat.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, chatObject, configure, json, parallel, toolConfig } from "../helpers";

afterEach(async () => {
  await reset();
});

const openai = (id: string, name: string, args: unknown = {}) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
const begins = (name: string) => `'${name.slice(0, 64)}…'`;

describe("names", () => {
  it("31 calls named with 19,000 characters and a wait: error entries, a small idempotency row, the same answer again", async () => {
    await configure(toolConfig({ limits: { max_calls: 32, max_body_bytes: 655_360 } }));
    const long = "n".repeat(19_000);
    const body = {
      tool_calls: [
        ...Array.from({ length: 31 }, (_, i) => openai(`c${i}-${"i".repeat(1000)}`, long)),
        openai("w", "wait", { seconds: 1 }),
      ],
    };
    const headers = { "idempotency-key": "huge-names" };
    const res = await api("/v1/chats/names1/tool-calls", { body, headers });
    expect(res.status).toBe(200);
    const first = await json(res);
    expect(first.results).toHaveLength(32);
    expect(first.results[0]).toMatchObject({
      tool_call_id: `c0-${"i".repeat(1000)}`,
      name: "n".repeat(128),
      job_id: null,
      state: "error",
      error: {
        code: "invalid_tool_calls",
        message: `tool_calls[0] is not a valid tool call: Tool request tool_name is 19000 characters long; a name is at most 128 (${begins(long)})`,
      },
    });
    expect(first.results[31]).toMatchObject({ tool_call_id: "w", name: "wait", state: "success" });

    const sizes = await runInDurableObject(chatObject("names1"), (_i, state) =>
      state.storage.sql.exec<{ bytes: number }>(`SELECT length(request) AS bytes FROM idempotency`).toArray(),
    );
    expect(sizes).toHaveLength(1);
    expect(sizes[0]!.bytes).toBeLessThan(20_000);

    const again = await json(await api("/v1/chats/names1/tool-calls", { body, headers }));
    expect(again).toEqual(first);
    const chat = await json(await api("/v1/chats/names1"));
    expect(chat.chat_id).toBe("names1");
  });

  it("/parallel refuses a tool name past 128 characters and quotes at most 64 of an unknown one", async () => {
    await configure();
    const over = await parallel("names2", { tool_calls: [call("x".repeat(129))] });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      code: "invalid_tool_calls",
      message: `tool_calls[0] is not a valid tool call: Tool request tool_name is 129 characters long; a name is at most 128 (${begins("x".repeat(129))})`,
    });
    const unknown = await parallel("names2", { tool_calls: [call("y".repeat(128))] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_tool");
    expect(unknown.body.error.message).toMatch(
      new RegExp(`^tool_calls\\[0\\] uses unknown tool '${"y".repeat(64)}…'\\. Available tools: `),
    );
    // Nothing was created by the refusals.
    expect((await api("/v1/chats/names2")).status).toBe(404);
  });

  it("refuses an agent, profile, label or context_id past 128 characters at /parallel and /spawn", async () => {
    await configure();
    const long = "a".repeat(200);
    const cases: [string, Record<string, unknown>, string][] = [
      ["spawn_task", { task: "t", agent: long }, "/agent"],
      ["spawn_task", { task: "t", label: long }, "/label"],
      ["spawn_task", { task: "t", tools: [long] }, "/tools/0"],
      ["call_subordinate", { message: "m", profile: long }, "/profile"],
      ["call_subordinate", { message: "m", context_id: long }, "/context_id"],
      ["call_subordinate", { message: "m", reset: true, name: long }, "/name"],
    ];
    for (const [tool, args, field] of cases) {
      const res = await parallel("names3", { tool_calls: [call(tool, args)] });
      expect(res.status, field).toBe(400);
      expect(res.body.error).toEqual({
        code: "invalid_tool_calls",
        message: `tool_calls[0] is not a valid tool call: ${field} is 200 characters long; a name is at most 128 (${begins(long)})`,
      });
    }
    const spawn = await api("/v1/chats/names3/spawn", { body: { task: "t", label: long } });
    expect(spawn.status).toBe(400);
    expect((await json(spawn)).error.code).toBe("invalid_tool_calls");
    const agent = await parallel("names3", { tool_calls: [call("wait", { seconds: 1 })] }, { query: `?agent=${long}` });
    expect(agent.status).toBe(400);
    expect(agent.body.error.message).toMatch(new RegExp(`^Agent profile '${"a".repeat(64)}…' not found`));
    expect((await api("/v1/chats/names3")).status).toBe(404);
  });

  it("error texts quote at most 64 characters of a job, event or chat id and of an Idempotency-Key", async () => {
    await configure();
    const started = await parallel("ids1", { tool_calls: [call("echo")], wait: false });
    expect(started.status).toBe(200);
    const jobId = "j".repeat(5000);

    const unknown = await parallel("ids1", { action: "collect", job_ids: [jobId, "nope-1"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toEqual({
      code: "unknown_job_ids",
      message: `Unknown parallel job id(s): ${"j".repeat(64)}…, nope-1`,
      job_ids: [`${"j".repeat(64)}…`, "nope-1"],
    });

    const notFound = `Job ${begins(jobId)} not found in chat 'ids1'; it may have been purged.`;
    const record = await api(`/v1/chats/ids1/jobs/${jobId}`);
    expect(record.status).toBe(404);
    expect((await json(record)).error).toEqual({ code: "job_not_found", message: notFound });
    const approval = await api(`/v1/chats/ids1/jobs/${jobId}/approval`, { body: { decision: "approve" } });
    expect(approval.status).toBe(404);
    expect((await json(approval)).error).toEqual({ code: "job_not_found", message: notFound });

    // Event ids are refused past `evt_` and 64 characters, so the longest is quoted cut by 4.
    const eventId = `evt_${"e".repeat(64)}`;
    const redeliver = await api(`/v1/chats/ids1/events/${eventId}/redeliver`, { method: "POST" });
    expect(redeliver.status).toBe(404);
    expect((await json(redeliver)).error.message).toMatch(
      new RegExp(`^Event ${begins(eventId)} not found in chat 'ids1':`),
    );

    const chatId = "c".repeat(128);
    const chat = await api(`/v1/chats/${chatId}`);
    expect(chat.status).toBe(404);
    expect((await json(chat)).error.message).toMatch(new RegExp(`^Chat ${begins(chatId)} not found:`));

    const key = "k".repeat(255);
    const headers = { "idempotency-key": key };
    expect((await parallel("ids1", { tool_calls: [call("echo", { n: 1 })], wait: false }, { headers })).status).toBe(
      200,
    );
    const other = await parallel("ids1", { tool_calls: [call("echo", { n: 2 })], wait: false }, { headers });
    expect(other.status).toBe(409);
    expect(other.body.error).toEqual({
      code: "idempotency_conflict",
      message: `Idempotency-Key ${begins(key)} was used with a different request.`,
    });
  });

  it("a first write that fails leaves no half-created chat", async () => {
    await configure();
    // The chat's first transaction fails at its first job row, after the tables and its meta rows.
    await runInDurableObject(chatObject("names4"), (_i, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      Object.defineProperty(sql, "exec", {
        configurable: true,
        value: (query: string, ...bindings: unknown[]) => {
          if (query.startsWith("INSERT INTO jobs")) throw new Error("injected write failure");
          return exec(query, ...bindings);
        },
      });
    });
    const failed = await parallel("names4", { tool_calls: [call("wait", { seconds: 1 })] });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await api("/v1/chats/names4")).status).toBe(404);
    expect((await api("/v1/chats/names4/jobs")).status).toBe(404);

    await runInDurableObject(chatObject("names4"), (_i, state) => {
      delete (state.storage.sql as unknown as Record<string, unknown>).exec;
    });
    const ok = await parallel("names4", { tool_calls: [call("wait", { seconds: 1 })], wait: false });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await json(await api("/v1/chats/names4"))).chat_id).toBe("names4");
  });
});
