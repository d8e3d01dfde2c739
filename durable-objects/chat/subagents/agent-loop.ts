/**
 * One step of a child chat's agent loop (docs/api.md#the-agent-loop): collect the results of
 * the previous step's tool calls, ask the model (from a Worker runner, which is billed for CPU
 * only while the model thinks), persist its reply, and start its tool calls as durable jobs of
 * this chat, or finish the turn with its text. Every step is written before the next begins; the
 * ChatDO's `agent` timer drives steps, so an evicted child simply runs the pending step again.
 */
import type { ChatMessage } from "../../../src/core/agents/llm";
import { profile as profileOf } from "../../../src/core/agents/profiles";
import { toolDefinitions } from "../../../src/core/agents/tool-definitions";
import { isTerminal } from "../../../src/core/jobs/job";
import { MAX_MESSAGE_BYTES } from "../../../src/core/storage/row-bounds";
import type { AskAnswer, ClaimedAsk, JobOutcome } from "../../../src/core/jobs/messages";
import { askLapsed } from "../../../src/core/runner/model-ask";
import { addUsage, jobUsage, modelRequest } from "../../../src/core/usage/usage";
import { resultsPayload, startedPayload } from "../../../src/core/jobs/payloads";
import type { AwaitedCall, Turn } from "../storage/turns";
import type { LoopHost, StepResult } from "./loop-host";
import {
  backgroundReport,
  lastText,
  MAX_RESULT_CHARS_IN_LOOP,
  replyBytes,
  systemPrompt,
  toolContent,
} from "./loop-messages";
import { inBackground, planCalls } from "./step-calls";

export type { LoopHost, StepResult } from "./loop-host";

export const NO_LLM_ERROR =
  "No LLM provider configured: set llm.base_url, llm.model and llm.api_key with PUT /v1/config.";

/**
 * The step a model request is for, as the budget knows it: one request per step of a turn, however often the
 * step runs before it leaves.
 */
export const stepOf = (turn: Turn) => `${turn.parent_job_id}:${turn.steps}`;

/**
 * The step's first half: the previous step's results go into the conversation, then the checks
 * before a model request (the deadline, max_steps, the budget, room under the flow rules), then
 * the request goes to a Worker runner (docs/architecture.md#model-requests). Its reply comes back
 * through `takeReply`; while it is out, the step answers `asking`, and sends it again if it lapsed.
 */
export async function runStep(host: LoopHost, turnId: string, now: number): Promise<StepResult> {
  const turn = host.turns.get(turnId);
  if (turn?.state !== "running") return "finished";
  // Past the parent job's deadline the parent has ended it `timeout`: no more model calls.
  if (now >= turn.deadline_at)
    return finishWith(host, turn, {
      state: "error",
      error: "The parent job's deadline passed.",
      error_type: "timeout",
      attempt: 1,
      usage: turn.usage,
    });

  const ask = host.pendingAsk(turnId);
  if (ask) {
    // No side effect to fear: a request whose runner went silent (or never came) is asked again,
    // under a new lease that makes whatever the old runner sends stale.
    if (askLapsed(ask, now)) await host.ask(turn, now);
    return "asking";
  }

  // 1. The previous step's tool calls: wait for them, then hand their results to the model.
  if (turn.awaiting) {
    const ids = turn.awaiting.flatMap((c) => c.job_ids ?? (c.job_id ? [c.job_id] : []));
    if (host.jobs.many(ids).some((j) => !isTerminal(j.state))) return "waiting";
    // Usage is summed over the subtree (docs/api.md#the-agent-loop): subordinates report theirs with their result.
    const usage = addUsage(turn.usage, ...host.jobs.many(ids).map(jobUsage));
    host.transaction(() => {
      for (const call of turn.awaiting!) {
        if (call.report) host.turns.append(turnId, backgroundReport(call.job_ids ?? [], host.jobs, now), now);
        else
          host.turns.append(
            turnId,
            { role: "tool", tool_call_id: call.tool_call_id, content: toolContent(call, host.jobs, now) },
            now,
          );
      }
      const reported = turn.awaiting!.some((c) => c.report);
      host.turns.update(turnId, { awaiting: null, usage, ...(reported ? { background: [] } : {}) });
      if (reported) turn.background = [];
    });
    turn.awaiting = null;
    turn.usage = usage;
  }

  // 2. May the model be asked?
  const config = await host.config();
  // Stopped or deleted during that lookup: no model call may start after that.
  if (!host.running(turnId)) return "finished";
  // The provider's key is opened only at the claim, for the runner that sends the request.
  if (!config.llm)
    return finishWith(host, turn, {
      state: "error",
      error: NO_LLM_ERROR,
      error_type: "llm_error",
      attempt: 1,
      usage: turn.usage,
    });
  const prof = profileOf(config, host.identity().profile);
  const history = host.turns.messages();
  if (turn.steps >= prof.max_steps) {
    const error = `Reached max_steps (${prof.max_steps}) without a final answer. Last text: ${lastText(history) || "(none)"}`;
    return finishWith(host, turn, { state: "error", error, error_type: "max_steps", attempt: 1, usage: turn.usage });
  }
  const allowed = await host.budgetAllows(stepOf(turn));
  if (!allowed.ok) {
    // No further model request: the turn ends with what it had said, and why it stopped.
    const error = `${lastText(history) ? `Last text: ${lastText(history)}\n` : ""}${allowed.error}`;
    return finishWith(host, turn, {
      state: "error",
      error,
      error_type: "budget_exhausted",
      attempt: 1,
      usage: turn.usage,
    });
  }
  const room = await host.modelRoom(turn, config);
  if (room.outcome === "waiting") return "room";
  if (room.outcome === "refused") {
    await host.modelUnanswered(stepOf(turn));
    return finishWith(host, turn, {
      state: "error",
      error: room.message,
      error_type: "flow_rejected",
      attempt: 1,
      usage: turn.usage,
    });
  }
  if (!host.running(turnId)) {
    await room.release(); // stopped while it waited for room: no model request leaves
    await host.modelUnanswered(stepOf(turn));
    return "finished";
  }
  await host.ask(turn, Date.now());
  return "asking";
}

/**
 * The request a runner makes for the turn's step, built when it claims the ask (the conversation
 * never enters the queue): null when no LLM provider is configured any more.
 */
export async function modelRequestOf(host: LoopHost, turn: Turn): Promise<ClaimedAsk | null> {
  const [config, llm] = await Promise.all([host.config(), host.llm()]);
  if (!llm) return null;
  const mcp = await host.mcp(config);
  const who = host.identity();
  const prof = profileOf(config, who.profile);
  const messages: ChatMessage[] = [{ role: "system", content: systemPrompt(prof) }, ...host.turns.messages()];
  const tools = toolDefinitions(config, who.profile, who.level, who.tools, mcp);
  return {
    target: llm,
    allow_private_egress: host.allowPrivateEgress(),
    request: { model: prof.model, messages, tools },
  };
}

/**
 * The step's second half, with the model's answer: its usage counted, the reply written, and its
 * tool calls started as jobs of this chat in the same transaction, or the turn finished with its text.
 */
export async function takeReply(host: LoopHost, turnId: string, answer: AskAnswer): Promise<StepResult> {
  const turn = host.turns.get(turnId);
  if (turn?.state !== "running") return "finished";
  await host.releaseModelRoom();
  if ("error" in answer) {
    await host.modelUnanswered(stepOf(turn));
    return finishWith(host, turn, {
      state: "error",
      error: answer.error,
      error_type: "llm_error",
      attempt: 1,
      usage: turn.usage,
    });
  }
  const { reply } = answer;
  const config = await host.config();
  const who = host.identity();
  const prof = profileOf(config, who.profile);
  const request = modelRequest(reply.usage, prof.prices ?? config.llm?.prices);
  await host.modelUsed(Date.now(), request, stepOf(turn));
  const usage = addUsage(turn.usage, request);
  const bytes = replyBytes(reply);
  if (bytes > MAX_MESSAGE_BYTES) {
    const error = `The model's reply took ${bytes} bytes; fanout keeps at most ${MAX_MESSAGE_BYTES} per message.`;
    return finishWith(host, turn, { state: "error", error, error_type: "llm_error", attempt: 1, usage });
  }
  const after = Date.now();
  if (!host.running(turnId)) return "finished"; // stopped while the model was thinking
  host.progress(after);
  const budget = config.limits.max_tokens_per_job;
  if (budget !== null && usage.prompt_tokens + usage.completion_tokens > budget) {
    host.turns.update(turnId, { usage });
    return finishWith(
      host,
      { ...turn, usage },
      { state: "error", error: "Token budget exhausted.", error_type: "max_steps", attempt: 1, usage },
    );
  }

  // 3. Persist the reply; its tool calls become jobs in the same step.
  if (reply.tool_calls.length === 0) {
    // Background jobs the model started must reach it before it may finish (docs/api.md#the-agent-loop).
    const pending = turn.background;
    host.transaction(() => {
      host.turns.append(turnId, { role: "assistant", content: reply.content }, after, request);
      const report: AwaitedCall[] | null = pending.length
        ? [{ tool_call_id: "", job_id: null, job_ids: pending, report: true }]
        : null;
      host.turns.update(turnId, { steps: turn.steps + 1, usage, awaiting: report });
    });
    if (pending.length) return "again";
    return finishWith(host, { ...turn, usage }, { state: "success", result: reply.content, attempt: 1, usage });
  }
  const mcp = await host.mcp(config);
  const { specs, plans } = planCalls(reply.tool_calls, config, who, mcp);
  const tree = await host.reserveTree(specs, after, config);
  if (!host.running(turnId)) {
    host.releaseTree(tree);
    return "finished";
  }
  let awaitsJobs = false;
  host.transaction(() => {
    host.turns.append(
      turnId,
      {
        role: "assistant",
        content: reply.content || null,
        tool_calls: reply.tool_calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      after,
      request,
    );
    const { jobIds, errors } = host.admitCalls(turn, specs, after, config, tree);
    const background = [...turn.background];
    const refused = (i: number) => (errors.has(i) ? `Error: ${errors.get(i)}` : undefined);
    const awaiting: AwaitedCall[] = reply.tool_calls.map((c, i): AwaitedCall => {
      const plan = plans[i]!;
      if (plan.kind === "error") return { tool_call_id: c.id, job_id: null, content: plan.content };
      const own = plan.kind === "job" ? [plan.spec] : plan.specs;
      const error = own.map((s) => refused(s.index)).find(Boolean);
      if (error) return { tool_call_id: c.id, job_id: null, content: error };
      const started = own.map((s) => jobIds.get(s.index)!);
      const earlier = plan.kind === "parallel" ? plan.job_ids : [];
      if (inBackground(plan)) {
        background.push(...started);
        const view = { now: after, maxResultChars: MAX_RESULT_CHARS_IN_LOOP };
        const payload = earlier.length
          ? resultsPayload(host.jobs.many([...earlier, ...started]), view)
          : startedPayload(host.jobs.many(started), view);
        return { tool_call_id: c.id, job_id: null, content: JSON.stringify(payload) };
      }
      if (plan.kind === "job") return { tool_call_id: c.id, job_id: started[0]! };
      return { tool_call_id: c.id, job_id: null, job_ids: [...earlier, ...started] };
    });
    awaitsJobs = awaiting.some((a) => a.content === undefined);
    host.turns.update(turnId, { steps: turn.steps + 1, usage, awaiting, background });
  });
  return awaitsJobs ? "waiting" : "again";
}

async function finishWith(host: LoopHost, turn: Turn, outcome: JobOutcome): Promise<StepResult> {
  await host.finish(turn, outcome);
  return "finished";
}
