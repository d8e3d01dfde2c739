/**
 * `tools/call` on the MCP endpoint (docs/mcp.md#calls): one call admitted exactly as
 * `POST …/tool-calls` admits one (validation, gates, idempotency), then answered as the client
 * can take it: at once when the job ends, as a task when the client runs calls as tasks, or after a
 * wait kept alive by progress notifications.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { quoteName } from "../../core/calls/names";
import { InvalidToolCall, normalizeToolCall } from "../../core/calls/normalize-call";
import { ApiError } from "../../core/http/errors";
import { PARALLEL_NAMES } from "../../core/tools/builtins";
import { specNumbering } from "../../core/jobs/call-plan";
import { toolCallEntry } from "../../core/jobs/tool-call-entry";
import type { ToolCallsReply } from "../../core/jobs/tool-calls-messages";
import { isTerminal } from "../../core/jobs/job";
import {
  endedCallResult,
  statusMessage,
  stillRunningResult,
  type CallToolResult,
  type McpJobView,
} from "../../core/mcp-server/job-view";
import type { HeardProgress } from "../requests/await-jobs";
import { batchContext, planNamingEveryTool } from "../requests/batch-context";
import type { McpSession } from "./session";
import { readView, waitForJob } from "./job-reads";

/** `parallel` is not listed, by any of its names: an MCP client makes its calls side by side itself. */
function callsParallel(call: unknown): boolean {
  try {
    return PARALLEL_NAMES.has(normalizeToolCall(call).tool_name);
  } catch (e) {
    if (e instanceof InvalidToolCall) return false; // the call's own entry refuses it
    throw e;
  }
}

const parallelRefused = (name: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Tool '${quoteName(name)}' is not offered over MCP: make each call on its own, side by side; every call is its own job.`,
  );

/** How the client takes the answer. */
export type CallMode =
  /** Wait for the job; `progress`, when the client gave a token, hears what it waits for. */
  | { kind: "sync"; progress?: (message: string | undefined) => Promise<void> }
  /**
   * A task client: the result when the job ends within `waitMs`, else the task; `always`, the task
   * whatever the job did (2025-11-25's task-augmented call).
   */
  | { kind: "task"; waitMs: number; always?: boolean };

export type CallAnswer = { result: CallToolResult } | { task: McpJobView };

/** Refusals of the call's own name or arguments: JSON-RPC `-32602`, as MCP asks; any other is an error result. */
const INVALID_PARAMS = new Set(["unknown_tool", "invalid_tool_calls", "invalid_subordinate_call"]);

/**
 * A refusal's text, as a call's own rather than one of a `tool_calls` list's; the tools it offers
 * are those MCP lists, without `parallel`.
 */
const asCallMessage = (message: string) =>
  message.replace(/^tool_calls\[0\] /, "The call ").replace("Available tools: parallel, ", "Available tools: ");

function refused(error: { code: string; message: string }): CallAnswer {
  const message = asCallMessage(error.message);
  if (INVALID_PARAMS.has(error.code)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, message);
  return { result: { content: [{ type: "text", text: `Error: ${message}` }], isError: true } };
}

export async function callTool(
  s: McpSession,
  params: { name: string; arguments?: Record<string, unknown> },
  mode: CallMode,
): Promise<CallAnswer> {
  // The JSON-RPC id is left out: a client retries with a new one, and the Idempotency-Key fingerprint covers the call.
  const call = { name: params.name, arguments: params.arguments ?? {} };
  if (callsParallel(call)) throw parallelRefused(params.name);
  let reply: ToolCallsReply;
  try {
    const ctx = await batchContext(s.c, { body: { tool_calls: [call] }, agent: s.agent });
    const entry = await planNamingEveryTool(
      ctx,
      (spec) => toolCallEntry(0, call, spec, specNumbering()),
      (planned) => planned.error?.code === "unknown_tool",
    );
    if (entry.parallel) throw parallelRefused(params.name);
    if (entry.error) return refused(entry.error);
    const waitMs = mode.kind === "task" ? mode.waitMs : syncWaitLeft(s);
    const fields = await ctx.fields("mcp");
    reply = await ctx.chat().runToolCalls({
      ...fields,
      entries: [entry],
      order: "parallel",
      wait_seconds: Math.ceil(waitMs / 1000),
      wait: true,
    });
  } catch (e) {
    // A refusal of the request (its key, the chat's state) is the call's error; a fault is the endpoint's.
    if (e instanceof ApiError && e.status < 500) return refused(e);
    throw e;
  }
  if (!reply.ok) {
    if (reply.status >= 500) throw new ApiError(reply.status, reply.code, reply.message);
    return refused(reply);
  }
  const admitted = "awaiting" in reply ? reply.awaiting.stored.calls[0] : reply.answer.results[0];
  if (!admitted?.job_id) return refused(admitted?.error ?? { code: "internal", message: "The call was not admitted." });
  return answerCall(s, admitted.job_id, mode);
}

const jobGone = () =>
  new ProtocolError(ProtocolErrorCode.InternalError, "The call's job is gone: its chat was deleted meanwhile.");

/** What is left of a synchronous call's wait: it counts from the request's arrival, listings and admission included. */
const syncWaitLeft = (s: McpSession) => Math.max(0, s.maxWaitSeconds * 1000 - (Date.now() - s.arrivedAt));

async function answerCall(s: McpSession, jobId: string, mode: CallMode): Promise<CallAnswer> {
  const waitMs = mode.kind === "task" ? mode.waitMs : syncWaitLeft(s);
  const tick =
    mode.kind === "sync" && mode.progress
      ? async () => {
          const view = await readView(s, jobId, false);
          await mode.progress!(view ? statusMessage(view) : undefined);
        }
      : undefined;
  if (tick) await tick(); // says at once what the call waits for (an approval, a flow slot)
  if (mode.kind === "task" && mode.always) {
    const view = await readView(s, jobId, false); // its result is handed over by `tasks/result`
    if (!view) throw jobGone();
    return { task: view };
  }
  const heard =
    mode.kind === "sync" && mode.progress
      ? (p: HeardProgress) => void mode.progress!(p.message ?? "running").catch(() => undefined)
      : undefined;
  await waitForJob(s, jobId, waitMs, tick, heard);
  // Collects the result when the job ended: this answer hands it over.
  const view = await readView(s, jobId, true);
  if (!view) throw jobGone();
  if (isTerminal(view.snapshot.state)) return { result: endedCallResult(view) };
  if (mode.kind === "task") return { task: view };
  return { result: stillRunningResult(view, s.chatId, Math.round((Date.now() - s.arrivedAt) / 1000)) };
}
