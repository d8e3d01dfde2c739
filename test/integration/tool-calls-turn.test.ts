/**
 * `/tool-calls` handing over a turn (docs/api.md#tiered-execution-and-the-tool-calls-route, SPEC v1.4
 * §16): `wait: false` answers at once with each call's job and state, and the bot's `context` comes
 * back on `batch.finished` as it was given, so a webhook-driven bot keeps no store between the two.
 */
import { reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, chatObject, configure, eventually, json, toolServer } from "../helpers";
import { inbox, received, webhookConfig } from "../webhook-inbox";

afterEach(() => {
  vi.useRealTimers();
  return reset();
});

const tracked = {
  name: "tracked",
  description: "held for a while",
  url: `${toolServer()}/tracked`,
  read_only: true,
  parameters: { type: "object" },
};
const openAiCall = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
/** What an OpenAI bot keeps to continue its turn: the conversation so far and the assistant message. */
const turnContext = (calls: unknown[]) => ({
  messages: [{ role: "user", content: "Look both up, please." }],
  assistant: { role: "assistant", content: null, tool_calls: calls },
  note: 'ünïcødé and nested [1, {"a": null}]',
});

describe("/tool-calls handing over a turn", () => {
  it("answers `wait: false` at once, in call order, and brings the context back on batch.finished", async () => {
    const hook = await inbox("turn-1");
    const base = webhookConfig(hook);
    await configure({ ...base, tools: [...base.tools, tracked] });
    const calls = [
      openAiCall("call_a", "tracked", { group: "turn-1", n: 1, ms: 400 }),
      openAiCall("call_b", "no_such_tool", {}),
      openAiCall("call_c", "echo", { text: "hi" }),
    ];
    const context = turnContext(calls);
    const res = await api("/v1/chats/turn-1/tool-calls", { body: { tool_calls: calls, wait: false, context } });
    expect(res.status).toBe(200);
    const started = await json(res);
    expect(started.status).toBe("started");
    expect(started.batch_id).toMatch(/^batch-/);
    expect(started.results.map((r: any) => r.tool_call_id)).toEqual(["call_a", "call_b", "call_c"]);
    // The held call is still on its way: the answer did not wait for it.
    expect(["pending", "running"]).toContain(started.results[0].state);
    expect(started.results[0].job_id).toEqual(expect.any(String));
    expect(started.results[1]).toMatchObject({ job_id: null, state: "error", error: { code: "unknown_tool" } });
    const finished = await eventually(async () => {
      const events = (await received("turn-1")).map((r) => JSON.parse(r.body));
      return events.find((e) => e.type === "batch.finished");
    });
    expect(finished.data.batch_id).toBe(started.batch_id);
    expect(finished.data.context).toEqual(context);
    const jobs = finished.data.results.jobs.map((j: any) => [j.tool_call_id, j.state]);
    expect(jobs).toEqual([
      ["call_a", "success"],
      ["call_c", "success"],
    ]);
    // Every call the model made, the refused one too, in call order: a bot answers each of them.
    const answered = [
      { tool_call_id: "call_a", name: "tracked", job_id: started.results[0].job_id, state: "success" },
      { tool_call_id: "call_b", name: "no_such_tool", job_id: null, state: "error", error: { code: "unknown_tool" } },
      { tool_call_id: "call_c", name: "echo", job_id: started.results[2].job_id, state: "success" },
    ];
    expect(finished.data.tool_calls).toMatchObject(answered);
    expect(finished.data.tool_calls[1].content).toMatch(/^Error: /);
    // A call that is one job is not said twice: its outcome is the job's.
    expect(finished.data.tool_calls[0]).not.toHaveProperty("content");
    const record = await json(await api(`/v1/chats/turn-1/batches/${started.batch_id}`));
    expect(record.tool_calls).toMatchObject(answered);
  });

  it("refuses a context past 64 KiB or a `wait` that is not a boolean, saying what to send, and starts nothing", async () => {
    await configure();
    const calls = [openAiCall("call_a", "echo", { text: "hi" })];
    const big = await api("/v1/chats/turn-2/tool-calls", {
      body: { tool_calls: calls, wait: false, context: { history: "x".repeat(65_536) } },
    });
    expect(big.status).toBe(400);
    const bigError = await json(big);
    expect(bigError.error.code).toBe("context_too_large");
    expect(bigError.error.message).toContain("at most 65536 (64 KiB)");
    const word = await api("/v1/chats/turn-2/tool-calls", { body: { tool_calls: calls, wait: "no" } });
    expect(word.status).toBe(400);
    expect((await json(word)).error.code).toBe("invalid_wait");
    expect((await api("/v1/chats/turn-2/jobs")).status).toBe(404);
  });

  it("answers a retried `wait: false` request with the same jobs, started once", async () => {
    await configure();
    const body = { tool_calls: [openAiCall("call_a", "echo", { text: "once" })], wait: false, context: [1, 2] };
    const headers = { "Idempotency-Key": "turn-3-key" };
    const first = await json(await api("/v1/chats/turn-3/tool-calls", { body, headers }));
    const again = await json(await api("/v1/chats/turn-3/tool-calls", { body, headers }));
    expect(again.status).toBe("started");
    expect(again.results[0].job_id).toBe(first.results[0].job_id);
    expect((await json(await api("/v1/chats/turn-3/jobs"))).jobs).toHaveLength(1);
  });

  it("answers for good when no call could start: no batch, so no batch.finished to wait for", async () => {
    await configure();
    const res = await json(
      await api("/v1/chats/turn-5/tool-calls", {
        body: { tool_calls: [openAiCall("call_a", "no_such_tool", {})], wait: false, context: { k: 1 } },
      }),
    );
    expect(res.status).toBe("error");
    expect(res.batch_id).toBeNull();
    expect(res.results[0]).toMatchObject({ tool_call_id: "call_a", state: "error", error: { code: "unknown_tool" } });
  });

  it("keeps the context while the batch's jobs are kept, and not after, even while its events are", async () => {
    const base = webhookConfig(await inbox("turn-6"), { limits: { retention_seconds: 60 } });
    await configure(base);
    // A running job keeps the chat while the handed-over batch's jobs pass their retention.
    await api("/v1/chats/turn-6/parallel", {
      body: { tool_calls: [{ tool_name: "wait", tool_args: { seconds: 300 } }], wait: false },
    });
    const started = await json(
      await api("/v1/chats/turn-6/tool-calls", {
        body: { tool_calls: [openAiCall("call_a", "echo", { text: "x" })], wait: false, context: { keep: "me" } },
      }),
    );
    await eventually(async () =>
      (await received("turn-6")).some((r) => JSON.parse(r.body).type === "batch.finished") ? true : undefined,
    );
    const contextRow = () =>
      runInDurableObject(chatObject("turn-6"), (_i, state) =>
        state.storage.sql
          .exec<{ context: string | null }>(`SELECT context FROM batches WHERE batch_id = ?`, started.batch_id)
          .toArray(),
      );
    expect(await contextRow()).toEqual([{ context: JSON.stringify({ keep: "me" }) }]);
    vi.useFakeTimers({ toFake: ["Date"] });
    for (const ms of [31_000, 31_000, 31_000]) {
      vi.setSystemTime(Date.now() + ms);
      await runDurableObjectAlarm(chatObject("turn-6"));
    }
    expect((await api(`/v1/chats/turn-6/batches/${started.batch_id}`)).status).toBe(404);
    // Its delivered batch.finished is kept a while, and so is the row its redelivery reads: not the context.
    expect((await contextRow()).every((row) => row.context === null)).toBe(true);
  });

  it("waits for the results as before when `wait` is left out", async () => {
    await configure();
    const res = await json(
      await api("/v1/chats/turn-4/tool-calls", { body: { tool_calls: [openAiCall("call_a", "echo", { text: "w" })] } }),
    );
    expect(res.status).toBe("success");
    expect(res.results[0]).toMatchObject({ tool_call_id: "call_a", state: "success" });
  });
});

describe("a batch as one record", () => {
  it("reads its state, jobs in call order, usage, metadata and context, while it runs and once it ended", async () => {
    const base = webhookConfig(await inbox("rec-1"));
    await configure({ ...base, tools: [...base.tools, tracked] });
    const calls = [
      openAiCall("call_a", "tracked", { group: "rec-1", n: 1, ms: 300 }),
      openAiCall("call_b", "echo", { text: "b" }),
    ];
    const metadata = encodeURIComponent(JSON.stringify({ user: "u-7" }));
    const started = await json(
      await api(`/v1/chats/rec-1/tool-calls?metadata=${metadata}`, {
        body: { tool_calls: calls, wait: false, context: { step: 3 } },
      }),
    );
    const running = await json(await api(`/v1/chats/rec-1/batches/${started.batch_id}`));
    expect(running).toMatchObject({ batch_id: started.batch_id, state: "running", context: { step: 3 } });
    expect(running.metadata).toEqual({ user: "u-7" });
    expect(running.jobs.map((j: any) => j.tool_call_id)).toEqual(["call_a", "call_b"]);
    const ended = await eventually(async () => {
      const record = await json(await api(`/v1/chats/rec-1/batches/${started.batch_id}`));
      return record.state === "success" ? record : undefined;
    });
    expect(ended.jobs.map((j: any) => [j.tool_call_id, j.state, j.result])).toEqual([
      ["call_a", "success", "tracked 1"],
      ["call_b", "success", expect.any(String)],
    ]);
    expect(ended.usage).toMatchObject({ tool_calls: 2 });
    expect(ended.rerun_of).toBeUndefined();
  });

  it("answers 404 for a batch the chat does not have, and shows a rerun's batch whole, with what it reran", async () => {
    await configure({ ...webhookConfig(await inbox("rec-2")), tools: [...webhookConfig("").tools, tracked] });
    const first = await json(
      await api("/v1/chats/rec-2/parallel", {
        body: {
          tool_calls: [
            { tool_name: "tracked", tool_args: { group: "rec-2", n: 1, ms: 1 } },
            { tool_name: "tracked", tool_args: { group: "rec-2", n: 2, ms: 1, fail: true } },
          ],
          timeout: 10,
        },
      }),
    );
    const missing = await api("/v1/chats/rec-2/batches/batch-nope");
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe("unknown_batch");
    expect((await api("/v1/chats/rec-none/batches/batch-nope")).status).toBe(404);
    const batchId = (await json(await api(`/v1/chats/rec-2/jobs/${first.jobs[0].job_id}`))).batch_id;
    const failed = first.jobs[1].job_id;
    const rerun = await json(
      await api(`/v1/chats/rec-2/batches/${batchId}/rerun`, {
        body: { jobs: [failed], tool_args: { [failed]: { group: "rec-2", n: 3, ms: 1 } } },
      }),
    );
    const record = await json(await api(`/v1/chats/rec-2/batches/${rerun.batch_id}`));
    expect(record.rerun_of).toBe(batchId);
    expect(record.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    expect(record.jobs[0].job_id).toBe(first.jobs[0].job_id);
  });
});

describe("a rerun of a handed-over batch", () => {
  it("goes on with the same turn: its batch.finished and its record bring the context and the calls back", async () => {
    const hook = await inbox("turn-7");
    const base = webhookConfig(hook);
    await configure({ ...base, tools: [...base.tools, tracked] });
    const started = await json(
      await api("/v1/chats/turn-7/tool-calls", {
        body: {
          tool_calls: [
            openAiCall("call_a", "tracked", { group: "turn-7", n: 1, ms: 1, fail: true }),
            openAiCall("call_b", "no_such_tool", {}),
          ],
          wait: false,
          context: { turn: 7 },
        },
      }),
    );
    const failed = started.results[0].job_id;
    await eventually(async () => {
      const record = await json(await api(`/v1/chats/turn-7/batches/${started.batch_id}`));
      return record.state === "error" ? record : undefined;
    });
    const rerun = await json(
      await api(`/v1/chats/turn-7/batches/${started.batch_id}/rerun`, {
        body: { jobs: [failed], tool_args: { [failed]: { group: "turn-7", n: 2, ms: 1 } } },
      }),
    );
    const record = await json(await api(`/v1/chats/turn-7/batches/${rerun.batch_id}`));
    expect(record).toMatchObject({ rerun_of: started.batch_id, context: { turn: 7 } });
    const finished = await eventually(async () =>
      (await received("turn-7"))
        .map((r) => JSON.parse(r.body))
        .find((e) => e.type === "batch.finished" && e.data.batch_id === rerun.batch_id),
    );
    expect(finished.data.context).toEqual({ turn: 7 });
    // The same calls, answered: the one that ran again under its new job, the refused one as it was.
    const rerunJob = rerun.jobs.find((j: any) => j.rerun_of === failed).job_id;
    const calls = [
      { tool_call_id: "call_a", job_id: rerunJob, state: "success" },
      { tool_call_id: "call_b", job_id: null, state: "error", error: { code: "unknown_tool" } },
    ];
    expect(finished.data.tool_calls).toMatchObject(calls);
    expect(record.tool_calls).toMatchObject([{ tool_call_id: "call_a", job_id: rerunJob }, calls[1]]);
  });
});

describe("/tool-calls error texts for who reads them", () => {
  it("tells a bot where a query key goes, the client's way too, and starts nothing", async () => {
    await configure();
    const calls = [openAiCall("call_a", "echo", { text: "hi" })];
    const res = await api("/v1/chats/turn-err/tool-calls", { body: { tool_calls: calls, metadata: { user: 7 } } });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual({
      code: "option_not_allowed_in_tool_args",
      message:
        "`metadata` is set by the bot, not the model: pass it as the query parameter ?metadata= (or the client's `{ metadata }` option), not inside the body.",
    });
    expect((await api("/v1/chats/turn-err/jobs")).status).toBe(404);
  });

  it("answers malformed OpenAI `arguments` under the call's id, naming `arguments`, not `tool_args`", async () => {
    await configure();
    const broken = { id: "call_bad", type: "function", function: { name: "echo", arguments: '{"text": "hi"' } };
    const res = await json(
      await api("/v1/chats/turn-err-2/tool-calls", {
        body: { tool_calls: [broken, openAiCall("call_ok", "echo", { text: "x" })] },
      }),
    );
    expect(res.results[0]).toMatchObject({
      tool_call_id: "call_bad",
      state: "error",
      error: { code: "invalid_tool_calls" },
    });
    expect(res.results[0].content).toMatch(
      /`arguments` of call 'call_bad' is not valid JSON \(.+\); write it as one JSON object/,
    );
    expect(res.results[0].content).not.toContain("tool_args");
    expect(res.results[1]).toMatchObject({ tool_call_id: "call_ok", state: "success" });
  });
});
