/**
 * One step of a child's agent loop (runStep) against a fake host: what it asks the model, what it persists,
 * what it admits or awaits, and how it ends the turn.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  modelRequestOf,
  NO_LLM_ERROR,
  runStep,
  takeReply,
  type LoopHost,
  type StepResult,
} from "../../durable-objects/chat/subagents/agent-loop";
import { JobStore } from "../../durable-objects/chat/storage/job-store";
import { ensureSchema } from "../../durable-objects/chat/storage/schema";
import type { TreeReservation } from "../../durable-objects/chat/storage/tree-slots";
import { Turns } from "../../durable-objects/chat/storage/turns";
import { configSchema, type TenantConfig } from "../../src/core/config/schema";
import type { JobSpec } from "../../src/core/jobs/job-spec";
import type { JobOutcome } from "../../src/core/jobs/messages";
import { RUNNER_LAPSES_AFTER_MS } from "../../src/core/runner/lease";
import { ASK_UNCLAIMED_MS, type ModelAsk } from "../../src/core/runner/model-ask";
import { answerOf } from "../../src/core/runner/model-runner";
import { chatObject, llmRequests, scriptLlm, toolServer } from "../helpers";

const TURN = "parent-job-1";

const baseConfig = (over: Record<string, unknown> = {}) =>
  configSchema.parse({
    tools: [{ name: "echo", url: "https://tools.example/echo", read_only: true }],
    agents: { brief: { max_steps: 1 } },
    ...over,
  });

interface Fake {
  host: LoopHost;
  turns: Turns;
  jobs: JobStore;
  /** What the step asked of the host, in order (model calls are seen by the fake LLM). */
  calls: string[];
  admitted: JobSpec[][];
  finished: JobOutcome[];
  /** The asks the step sent to a runner, in order; the last is the one still out, if any. */
  asks: ModelAsk[];
  pending(): ModelAsk | undefined;
  /** The runner's reply was taken: the ask is over (the chat's `ModelAsks.take`). */
  answered(): void;
  /** How often the room of a request was given back. */
  released(): number;
}

interface FakeOptions {
  model: string;
  config?: TenantConfig;
  profile?: string;
  noLlm?: boolean;
  /** Tool names the chat refuses at admission (as a cap would), with this message. */
  refuse?: Record<string, string>;
  /** Whether the turn may still act; defaults to its stored state. */
  running?: () => boolean;
}

/**
 * A host over a chat's real turn and job tables: admission inserts a pending job per
 * admitted spec, finishing marks the turn done. Config, LLM target and tree slots are
 * plain values; every call is recorded.
 */
function fakeHost(sql: SqlStorage, storage: DurableObjectStorage, o: FakeOptions): Fake {
  const turns = new Turns(sql);
  const jobs = new JobStore(sql);
  const calls: string[] = [];
  const admitted: JobSpec[][] = [];
  const finished: JobOutcome[] = [];
  const asks: ModelAsk[] = [];
  let pending: ModelAsk | undefined;
  let released = 0;
  // The stored config names the provider (its key is opened only for the claim, by `llm`).
  const config: TenantConfig = {
    ...(o.config ?? baseConfig()),
    llm: o.noLlm ? null : { base_url: `${toolServer()}/llm/v1`, model: o.model },
  };
  const tree: TreeReservation = { remote: true, slots: [], holders: [], expiresAt: 0, root: "root", tenant: "acme" };
  const host: LoopHost = {
    turns,
    jobs,
    identity: () => ({ level: 1, profile: o.profile ?? "default" }),
    // No flow rule on `llm` here: every model request has room (tested in test/integration/flow.test.ts).
    modelRoom: async () => ({ outcome: "granted", release: async () => {} }),
    config: async () => config,
    llm: async () =>
      o.noLlm ? null : { base_url: `${toolServer()}/llm/v1`, model: o.model, api_key: "sk-test", secrets: ["sk-test"] },
    allowPrivateEgress: () => true, // the fake LLM listens on 127.0.0.1
    pendingAsk: () => pending,
    ask: async (turn, now) => {
      pending = { turn_id: turn.parent_job_id, lease: `lease-${asks.length + 1}`, sent_at: now, renewed_at: null };
      asks.push(pending);
    },
    releaseModelRoom: async () => void released++,
    mcp: async () => ({}),
    modelUsed: async (_now, usage) => void calls.push(`modelUsed ${usage.llm_calls}`),
    modelUnanswered: async (step) => void calls.push(`modelUnanswered ${step}`),
    budgetAllows: async () => ({ ok: true }),
    admitCalls(turn, specs, now) {
      calls.push(`admitCalls ${specs.length}`);
      admitted.push(specs);
      const jobIds = new Map<number, string>();
      const errors = new Map<number, string>();
      for (const spec of specs) {
        const refusal = o.refuse?.[spec.tool_name];
        if (refusal) {
          errors.set(spec.index, refusal);
          continue;
        }
        jobs.insert({
          job_id: spec.job_id!,
          chat_id: "child",
          batch_id: "batch-1",
          idx: spec.index,
          tool_name: spec.tool_name,
          tool_call_id: spec.tool_call_id ?? null,
          tool_args: spec.tool_args,
          kind: spec.kind,
          read_only: spec.read_only,
          timeout_seconds: spec.timeout_seconds,
          created_at: now,
          deadline_at: turn.deadline_at,
          context_id: null,
          spec: null,
          metadata: null,
          flow: null,
          approval: null,
          budget: null,
          waiting_for: null,
          log_id: `log-${spec.job_id}`,
          log_type: "tool",
        });
        jobIds.set(spec.index, spec.job_id!);
      }
      return { jobIds, errors };
    },
    reserveTree: async (specs) => {
      calls.push(`reserveTree ${specs.length}`);
      return tree;
    },
    releaseTree: () => calls.push("releaseTree"),
    transaction: (fn) => storage.transactionSync(fn),
    running: (turnId) => (o.running ? o.running() : turns.get(turnId)?.state === "running"),
    progress: () => calls.push("progress"),
    finish: async (turn, outcome) => {
      calls.push("finish");
      finished.push(outcome);
      turns.update(turn.parent_job_id, { state: "done", outcome });
    },
  };
  return {
    host,
    turns,
    jobs,
    calls,
    admitted,
    finished,
    asks,
    pending: () => pending,
    answered: () => (pending = undefined),
    released: () => released,
  };
}

/**
 * A whole step: its first half, then (when it asked the model) what a Worker runner does with the
 * ask: the request the chat builds, sent to the fake LLM (it listens on 127.0.0.1), the answer
 * handed to the step's second half.
 */
async function takeStep(f: Fake, now: number): Promise<StepResult> {
  const first = await runStep(f.host, TURN, now);
  if (first !== "asking") return first;
  const claimed = await modelRequestOf(f.host, f.turns.get(TURN)!);
  const answer = await answerOf(claimed!);
  f.answered();
  const released = f.released();
  const result = await takeReply(f.host, TURN, answer);
  expect(f.released()).toBe(released + 1); // every answered request gives back its room under the flow rules
  return result;
}

/** A fresh child chat with one running turn that was asked `message`. */
function step<T>(name: string, o: FakeOptions, test: (f: Fake) => Promise<T>, deadlineIn = 600_000): Promise<T> {
  return runInDurableObject(chatObject(`agent-step-${name}`), async (_i, state) => {
    const sql = state.storage.sql;
    ensureSchema(sql);
    const f = fakeHost(sql, state.storage, o);
    const now = Date.now();
    f.turns.begin(
      { parent_job_id: TURN, parent_chat_id: "parent", lease: "lease-1", deadline_at: now + deadlineIn },
      now,
    );
    f.turns.append(TURN, { role: "user", content: "What is the weather?" }, now);
    return test(f);
  });
}

const usage = (llm_calls: number, tool_calls: number) => ({
  llm_calls,
  prompt_tokens: 10 * llm_calls,
  completion_tokens: 5 * llm_calls,
  tool_calls,
  subagents: 1,
});

describe("a model reply with text only", () => {
  it("finishes the turn with that text, the reply kept in the conversation", async () => {
    const model = "m-step-text";
    await scriptLlm(model, [{ content: "Sunny, 21 °C." }]);
    await step("text", { model }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toEqual([{ state: "success", result: "Sunny, 21 °C.", attempt: 1, usage: usage(1, 0) }]);
      expect(f.calls).toEqual(["modelUsed 1", "progress", "finish"]);
      expect(f.turns.messages().map((m) => [m.role, m.content])).toEqual([
        ["user", "What is the weather?"],
        ["assistant", "Sunny, 21 °C."],
      ]);
      expect(f.turns.get(TURN)).toMatchObject({ steps: 1, awaiting: null, state: "done" });
    });
    const [request] = await llmRequests(model);
    expect(request!.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
    expect(request!.tools!.map((t: { function: { name: string } }) => t.function.name)).toContain("echo");
  });

  it("while background jobs it started are unreported, hands their results over first instead of finishing", async () => {
    const model = "m-step-background";
    await scriptLlm(model, [{ content: "Done already?" }, { content: "Now with the results." }]);
    await step("background", { model }, async (f) => {
      f.jobs.insert({
        job_id: "echo-bg",
        chat_id: "child",
        batch_id: "b0",
        idx: 0,
        tool_name: "echo",
        tool_call_id: null,
        tool_args: "{}",
        kind: "tool",
        read_only: true,
        timeout_seconds: 600,
        created_at: Date.now(),
        deadline_at: Date.now() + 600_000,
        context_id: null,
        spec: null,
        metadata: null,
        flow: null,
        approval: null,
        budget: null,
        waiting_for: null,
        log_id: "log-echo-bg",
        log_type: "tool",
      });
      f.turns.update(TURN, { background: ["echo-bg"] });
      expect(await takeStep(f, Date.now())).toBe("again");
      expect(f.finished).toEqual([]);
      expect(f.turns.get(TURN)!.awaiting).toEqual([
        { tool_call_id: "", job_id: null, job_ids: ["echo-bg"], report: true },
      ]);
      // Still running: the step waits for it without asking the model.
      expect(await takeStep(f, Date.now())).toBe("waiting");
      f.jobs.finish("echo-bg", { state: "success", result: "background result" }, Date.now());
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toMatchObject([{ state: "success", result: "Now with the results." }]);
      expect(f.turns.get(TURN)!.background).toEqual([]);
    });
    const requests = await llmRequests(model);
    expect(requests).toHaveLength(2);
    const report = requests[1]!.messages.at(-1);
    expect(report.role).toBe("user");
    expect(report.content).toMatch(/^Background jobs you started have finished\./);
    expect(report.content).toContain("background result");
  });
});

describe("a model reply with tool calls", () => {
  it("admits them as jobs the turn awaits; once they end, their results go back to the model", async () => {
    const model = "m-step-tools";
    await scriptLlm(model, [{ tool_calls: [{ name: "echo", arguments: { q: "weather" } }] }, { content: "Sunny." }]);
    await step("tools", { model }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("waiting");
      expect(f.calls).toEqual(["modelUsed 1", "progress", "reserveTree 1", "admitCalls 1"]);
      const [spec] = f.admitted[0]!;
      expect(spec).toMatchObject({ index: 0, tool_name: "echo", tool_args: '{"q":"weather"}', kind: "tool" });
      const callId = spec!.tool_call_id!;
      // A tool call counts once it has run: this one is still pending.
      expect(f.turns.get(TURN)).toMatchObject({
        steps: 1,
        usage: usage(1, 0),
        awaiting: [{ tool_call_id: callId, job_id: spec!.job_id }],
      });
      expect(f.turns.messages().at(-1)).toMatchObject({
        role: "assistant",
        tool_calls: [{ id: callId, function: { name: "echo" } }],
      });

      // The job still runs: nothing new for the model.
      expect(await takeStep(f, Date.now())).toBe("waiting");
      f.jobs.finish(spec!.job_id!, { state: "success", result: "sunny", attempt: 1 }, Date.now());
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toEqual([{ state: "success", result: "Sunny.", attempt: 1, usage: usage(2, 1) }]);
    });
    const requests = await llmRequests(model);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "sunny" });
  });

  it("awaits every job of a parallel call as one call", async () => {
    const model = "m-step-parallel";
    const echo = (q: string) => ({ tool_name: "echo", tool_args: { q } });
    await scriptLlm(model, [{ tool_calls: [{ name: "parallel", arguments: { tool_calls: [echo("a"), echo("b")] } }] }]);
    await step("parallel", { model }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("waiting");
      const specs = f.admitted[0]!;
      expect(specs.map((s) => [s.index, s.group, s.concurrent])).toEqual([
        [0, 0, true],
        [1, 0, true],
      ]);
      const [awaited] = f.turns.get(TURN)!.awaiting!;
      expect(awaited).toMatchObject({ job_id: null, job_ids: specs.map((s) => s.job_id) });
    });
  });

  it("answers a call it cannot plan, or one the chat refuses, with its error, and goes on without waiting", async () => {
    const model = "m-step-refused";
    await scriptLlm(model, [
      {
        tool_calls: [
          { name: "nope", arguments: {} },
          { name: "echo", arguments: {} },
        ],
      },
    ]);
    await step(
      "refused",
      { model, refuse: { echo: "Chat already has 64 active jobs (limit 64); await or cancel some first." } },
      async (f) => {
        expect(await takeStep(f, Date.now())).toBe("again");
        // The unknown tool never reaches admission; the echo call is numbered first.
        expect(f.admitted[0]!.map((s) => [s.index, s.tool_name])).toEqual([[0, "echo"]]);
        const awaiting = f.turns.get(TURN)!.awaiting!;
        expect(awaiting.map((a) => [a.job_id, a.content])).toEqual([
          [null, expect.stringMatching(/^Error: tool_calls\[0\] uses unknown tool 'nope'\./)],
          [null, "Error: Chat already has 64 active jobs (limit 64); await or cancel some first."],
        ]);
        expect(f.jobs.count()).toBe(0);
      },
    );
  });

  it("starts nothing when the turn was stopped while the model was thinking", async () => {
    const model = "m-step-stopped";
    await scriptLlm(model, [{ tool_calls: [{ name: "echo", arguments: {} }] }]);
    let checks = 0;
    // Running at the two checks before the request leaves, stopped at the check after its reply:
    // what the request spent is counted, and nothing of its reply is kept or started.
    await step("stopped", { model, running: () => ++checks < 3 }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.calls).toEqual(["modelUsed 1"]);
      expect(f.turns.messages()).toHaveLength(1);
    });
    expect(await llmRequests(model)).toHaveLength(1);
  });
});

describe("a model request out with a Worker runner", () => {
  it("keeps the step `asking`, and is sent again only once it lapsed: unclaimed, or claimed and no longer renewed", async () => {
    const model = "m-step-ask";
    await scriptLlm(model, [{ content: "never asked here" }]);
    await step("ask", { model }, async (f) => {
      expect(await runStep(f.host, TURN, Date.now())).toBe("asking");
      const sent = f.asks[0]!.sent_at; // when the step sent it, after its lookups
      expect(await runStep(f.host, TURN, sent + ASK_UNCLAIMED_MS - 1)).toBe("asking");
      expect(f.asks).toHaveLength(1);
      // Its message never reached a runner: a new ask, under a new lease.
      expect(await runStep(f.host, TURN, sent + ASK_UNCLAIMED_MS)).toBe("asking");
      expect(f.asks.map((a) => a.lease)).toEqual(["lease-1", "lease-2"]);
      // A runner claimed the second and renewed it: it is left alone until it goes silent.
      const renewed = sent + 20_000;
      f.pending()!.renewed_at = renewed;
      expect(await runStep(f.host, TURN, renewed + RUNNER_LAPSES_AFTER_MS - 1)).toBe("asking");
      expect(f.asks).toHaveLength(2);
      expect(await runStep(f.host, TURN, renewed + RUNNER_LAPSES_AFTER_MS)).toBe("asking");
      expect(f.asks).toHaveLength(3);
      // The step itself asked nobody, and counted nothing: the runners do the asking.
      expect(f.calls).toEqual([]);
      expect(f.turns.get(TURN)).toMatchObject({ steps: 0, state: "running" });
    });
    expect(await llmRequests(model)).toHaveLength(0);
  });

  it("sends the request the chat builds at the claim: the conversation, the system prompt and the tools", async () => {
    await step("ask-request", { model: "m-step-request" }, async (f) => {
      expect(await runStep(f.host, TURN, Date.now())).toBe("asking");
      const claimed = await modelRequestOf(f.host, f.turns.get(TURN)!);
      expect(claimed!.target).toMatchObject({ model: "m-step-request", api_key: "sk-test" });
      expect(claimed!.request.messages.map((m) => m.role)).toEqual(["system", "user"]);
      expect(claimed!.request.tools.map((t) => (t as { function: { name: string } }).function.name)).toContain("echo");
    });
  });

  it("whose provider was removed meanwhile builds no request", async () => {
    await step("ask-no-llm", { model: "m-step-gone", noLlm: true }, async (f) => {
      expect(await modelRequestOf(f.host, f.turns.get(TURN)!)).toBeNull();
    });
  });
});

describe("a turn that cannot go on", () => {
  it("past the parent job's deadline ends with an error, without asking the model", async () => {
    const model = "m-step-deadline";
    await scriptLlm(model, [{ content: "never asked" }]);
    await step(
      "deadline",
      { model },
      async (f) => {
        expect(await takeStep(f, Date.now() + 1000)).toBe("finished");
        expect(f.finished).toEqual([
          {
            state: "error",
            error: "The parent job's deadline passed.",
            error_type: "timeout",
            attempt: 1,
            usage: usage(0, 0),
          },
        ]);
      },
      1000,
    );
    expect(await llmRequests(model)).toHaveLength(0);
  });

  it("without an LLM ends with the error that says how to set one", async () => {
    await step("no-llm", { model: "m-step-none", noLlm: true }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toMatchObject([{ state: "error", error: NO_LLM_ERROR }]);
    });
  });

  it("at its profile's max_steps ends with an error quoting the last text", async () => {
    const model = "m-step-max";
    await scriptLlm(model, [{ content: "never asked" }]);
    await step("max-steps", { model, profile: "brief" }, async (f) => {
      f.turns.append(TURN, { role: "assistant", content: "Still looking." }, Date.now());
      f.turns.update(TURN, { steps: 1 });
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toMatchObject([
        { state: "error", error: "Reached max_steps (1) without a final answer. Last text: Still looking." },
      ]);
    });
    expect(await llmRequests(model)).toHaveLength(0);
  });

  it("over max_tokens_per_job ends with the budget error, counting the reply that went over", async () => {
    const model = "m-step-budget";
    await scriptLlm(model, [{ content: "A long answer." }]);
    await step("budget", { model, config: baseConfig({ limits: { max_tokens_per_job: 14 } }) }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toEqual([
        { state: "error", error: "Token budget exhausted.", error_type: "max_steps", attempt: 1, usage: usage(1, 0) },
      ]);
      expect(f.turns.messages()).toHaveLength(1);
    });
  });

  it("ends with the provider's error when the model call fails", async () => {
    const model = "m-step-fail";
    await scriptLlm(model, [{ status: 400 }]);
    await step("fail", { model }, async (f) => {
      expect(await takeStep(f, Date.now())).toBe("finished");
      expect(f.finished).toMatchObject([{ state: "error", error: expect.stringContaining("LLM provider error") }]);
      // The budget let the request go: it hears the request is no longer in flight, though nothing is known
      // of what it spent.
      expect(f.calls).toEqual([`modelUnanswered ${TURN}:0`, "finish"]);
    });
  });
});
