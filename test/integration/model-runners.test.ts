/**
 * A subagent's model requests wait in Worker runners (docs/architecture.md#model-requests): the
 * child chat writes the ask, a runner claims it once, renews it while the model thinks, and its
 * reply is taken only under the ask's lease. A runner gone silent costs a second ask, whose reply
 * is the one the turn goes on with; a stopped turn stops the request at the runner's next renewal.
 */
import {
  abortAllDurableObjects,
  evictDurableObject,
  reset,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import worker from "../../src/index";
import { NO_LLM_ERROR } from "../../durable-objects/chat/subagents/agent-loop";
import { RENEW_EVERY_MS, RUNNER_LAPSES_AFTER_MS } from "../../src/core/runner/lease";
import type { ModelAsk } from "../../src/core/runner/model-ask";
import {
  agentConfig,
  api,
  call,
  chatObject,
  configure,
  eventually,
  jobInState,
  json,
  llmRequests,
  parallel,
  scriptLlm,
  toolConfig,
  toolServer,
} from "../helpers";

afterEach(async () => {
  vi.useRealTimers();
  await reset();
});

const sub = (message: string) => call("call_subordinate", { message, reset: true });
/** Model requests holding room under the tenant's one flow rule. */
const running = async () =>
  ((await json(await api("/v1/flow"))) as { rules: { name: string; running: number }[] }).rules[0]!.running;
const dropped = async (model: string) =>
  ((await (await fetch(`${toolServer()}/__llm/dropped?model=${model}`)).json()) as { dropped: number }).dropped;

/** The ask the child's turn waits on, as the chat keeps it. */
const askOf = (child: string) =>
  runInDurableObject(chatObject(child), (_o, state) => {
    const row = state.storage.sql
      .exec<{ value: string }>("SELECT value FROM meta WHERE key = 'model_ask'")
      .toArray()[0];
    return row?.value ? (JSON.parse(row.value) as ModelAsk) : undefined;
  });

/**
 * A subagent whose first model request the fake model holds for `holdMs`; its job id and child chat, once the
 * request has arrived.
 */
async function subagentAsking(
  chat: string,
  model: string,
  holdMs: number,
  extra: Parameters<typeof agentConfig>[1] = {},
  secondMs = 0,
) {
  await configure(agentConfig(model, extra));
  await scriptLlm(model, [
    { content: "The slow answer.", delay_ms: holdMs },
    { content: "The second answer.", delay_ms: secondMs },
  ]);
  const { body } = await parallel(chat, { tool_calls: [sub("Think slowly.")], wait: false });
  const job = body.jobs[0] as { job_id: string; context_id: string };
  await eventually(async () => (await llmRequests(model)).length === 1);
  await eventually(async () => (await askOf(job.context_id))?.renewed_at != null);
  return { job: job.job_id, child: job.context_id, ask: (await askOf(job.context_id))! };
}

describe("a subagent's model request", () => {
  it("is claimed once under its lease: a second delivery, a renewal or a reply under another lease takes nothing", async () => {
    const model = "m-ask-once";
    const { job, child, ask } = await subagentAsking("ask-once", model, 3_000);
    const stub = chatObject(child);
    expect(ask.turn_id).toBe(job);
    expect(await stub.claimModelAsk(job, ask.lease)).toBeNull(); // the queue delivered its message twice
    expect(await stub.renewModelAsk(job, "another-lease")).toBe(false);
    expect(
      await stub.modelReplied(job, "another-lease", {
        reply: { content: "forged", tool_calls: [], usage: { prompt_tokens: 1, completion_tokens: 1 } },
      }),
    ).toBe("stale");
    // Past the parent job's deadline a renewal is refused, whatever the lease.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 3_600_000);
    expect(await stub.renewModelAsk(job, ask.lease)).toBe(false);
    vi.useRealTimers();
    expect(await jobInState("ask-once", job, "success")).toMatchObject({ result: "The slow answer." });
    expect(await askOf(child)).toBeUndefined();
  });

  it("outlives a restart of its chat: the runner's reply is taken by the next instance, and nothing is asked twice", async () => {
    const model = "m-ask-restart";
    const { job, child } = await subagentAsking("ask-restart", model, 3_000);
    await evictDurableObject(chatObject(child)).catch(() => abortAllDurableObjects()); // a deploy, mid-request
    expect(await jobInState("ask-restart", job, "success")).toMatchObject({ result: "The slow answer." });
    expect(await llmRequests(model)).toHaveLength(1);
    expect(await askOf(child)).toBeUndefined();
  });

  it("whose runner goes silent is asked again: the turn goes on with the second reply, and the first runner stops", async () => {
    const model = "m-ask-lost";
    const { job, child } = await subagentAsking("ask-lost", model, 25_000);
    // Past the lapse with no renewal heard (the runner's renewals run on real time): as if it had been lost.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + RUNNER_LAPSES_AFTER_MS + 1_000);
    expect(await runDurableObjectAlarm(chatObject(child))).toBe(true);
    vi.useRealTimers();
    expect(await jobInState("ask-lost", job, "success")).toMatchObject({ result: "The second answer." });
    expect(await llmRequests(model)).toHaveLength(2);
    // The first runner was alive after all: its next renewal is refused, and it hangs up on the model.
    await eventually(async () => (await dropped(model)) === 1, RENEW_EVERY_MS + 3_000);
  }, 20_000);

  it("asked again keeps the room its turn holds under a flow rule on `llm`: one slot, given back once", async () => {
    const model = "m-ask-room";
    const { job, child } = await subagentAsking(
      "ask-room",
      model,
      25_000,
      { flow: [{ name: "model", tools: ["llm"], concurrency: 1 }] },
      1_500,
    );
    expect(await running()).toBe(1);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + RUNNER_LAPSES_AFTER_MS + 1_000);
    expect(await runDurableObjectAlarm(chatObject(child))).toBe(true);
    vi.useRealTimers();
    await eventually(async () => (await llmRequests(model)).length === 2);
    // The second ask runs in the slot the first one took: not a second slot, and not none.
    expect(await running()).toBe(1);
    expect(await jobInState("ask-room", job, "success")).toMatchObject({ result: "The second answer." });
    await eventually(async () => (await running()) === 0, 5_000);
    await eventually(async () => (await dropped(model)) === 1, RENEW_EVERY_MS + 3_000);
    expect(await running()).toBe(0);
  }, 25_000);

  it("whose provider was removed before a runner claimed it ends the turn with the no-provider error, and gives back its room", async () => {
    // No runner takes the ask: the `calls` consumer drops its messages, as a slow queue would hold them.
    const consume = worker.queue;
    worker.queue = (batch, ...rest) => (batch.queue === "calls" ? Promise.resolve() : consume(batch, ...rest));
    onTestFinished(() => void (worker.queue = consume));
    const model = "m-ask-unconfigured";
    const flow = [{ name: "model", tools: ["llm"], concurrency: 1 }];
    await configure(agentConfig(model, { flow }));
    const { body } = await parallel("ask-unconfigured", { tool_calls: [sub("Think.")], wait: false });
    const { job_id, context_id } = body.jobs[0] as { job_id: string; context_id: string };
    // The child chat makes its tables with its first turn: until then there is nothing to read.
    await eventually(async () => (await askOf(context_id).catch(() => undefined)) !== undefined);
    expect(await running()).toBe(1);
    await configure(toolConfig({ flow })); // the provider goes
    const ask = (await askOf(context_id))!;
    expect(await chatObject(context_id).claimModelAsk(ask.turn_id, ask.lease)).toBeNull();
    expect(await jobInState("ask-unconfigured", job_id, "error")).toMatchObject({ error: NO_LLM_ERROR });
    await eventually(async () => (await running()) === 0, 5_000);
    expect(await llmRequests(model)).toHaveLength(0);
  });

  it("of a turn that ends while it is out gives back its room under a flow rule on `llm`", async () => {
    const model = "m-ask-idle";
    await configure(
      agentConfig(model, {
        flow: [{ name: "model", tools: ["llm"], concurrency: 1 }],
        limits: { subagent_idle_seconds: 1 },
      }),
    );
    await scriptLlm(model, [{ content: "Too late.", delay_ms: 15_000 }]);
    const { body } = await parallel("ask-idle", { tool_calls: [sub("Think for too long.")], wait: false });
    await eventually(async () => (await llmRequests(model)).length === 1);
    expect(await running()).toBe(1);
    // No progress for a second: the idle rule ends the turn while the runner still waits on the model.
    expect(await jobInState("ask-idle", body.jobs[0].job_id, "timeout")).toBeTruthy();
    await eventually(async () => (await running()) === 0, 5_000);
  }, 20_000);

  it("of a chat deleted while it is out gives back its room under a flow rule on `llm`", async () => {
    const model = "m-ask-deleted";
    await configure(agentConfig(model, { flow: [{ name: "model", tools: ["llm"], concurrency: 1 }] }));
    await scriptLlm(model, [{ content: "Nobody to hear it.", delay_ms: 15_000 }]);
    await parallel("ask-deleted", { tool_calls: [sub("Think while the chat goes.")], wait: false });
    await eventually(async () => (await llmRequests(model)).length === 1);
    expect(await running()).toBe(1);
    expect((await api("/v1/chats/ask-deleted", { method: "DELETE" })).status).toBe(200);
    await eventually(async () => (await running()) === 0, 5_000);
  }, 20_000);

  it("of a stopped turn is stopped at its runner's next renewal, and its reply is never taken", async () => {
    const model = "m-ask-stopped";
    const { job, child } = await subagentAsking("ask-stopped", model, 25_000);
    await parallel("ask-stopped", { action: "cancel", job_ids: [job] });
    expect(await askOf(child)).toBeUndefined();
    await eventually(async () => (await dropped(model)) === 1, RENEW_EVERY_MS + 3_000);
    expect(await llmRequests(model)).toHaveLength(1);
  }, 20_000);
});
