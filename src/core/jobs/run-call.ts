/**
 * One job's call, attempt after attempt, in the runner of whichever host runs
 * it. The attempt rules (docs/api.md#attempts-and-retries) live here once;
 * the runner records each attempt in the chat through the caller's
 * `CallRecord`. Before a retry leaves, the record says it
 * may have: a call lost after that point is never blindly sent again.
 */
import type { Progress as ProgressParams } from "@modelcontextprotocol/sdk/types.js";
import { egressProblem } from "../egress/policy";
import type { CallMeter } from "../tools/call-meter";
import { callHttpRequest, callTenantTool, type AttemptContext, type RunTarget } from "../tools/executors";
import { toolUrlRefused, type AttemptResult } from "../tools/http-call";
import { callMcpTool } from "../tools/mcp-client";
import { backoffMs, isRetryable } from "../tools/retry";
import { boundedSignal, sleep, StallWatch } from "../util/abort";
import { redactDeep, redactor } from "../util/redact";
import { OUTCOME_UNKNOWN_ERROR } from "./job";
import type { ClaimedCall, JobOutcome } from "./messages";

/** Where the call's attempts are recorded. */
export interface CallRecord {
  /** The attempt before `next` failed and is settled: a loss while backing off leaves `next` known unsent. */
  settled(next: number): void | Promise<void>;
  /** `next` is about to leave. */
  sending(next: number): void | Promise<void>;
  /** An MCP tool's `notifications/progress`. */
  progress?(progress: ProgressParams): void;
  /** The object's count of calls waiting for headers. */
  meter?: CallMeter;
  /** ALLOW_PRIVATE_EGRESS as read for this call: the egress rules apply to every send. */
  allowPrivateEgress: boolean;
}

type Callable = Exclude<RunTarget, { kind: "missing" }>;

/**
 * The call's outcome, or undefined when it was stopped (cancelled, or its deadline passed: the chat
 * ends it `timeout`). Whatever the remote answered is redacted of the tenant's stored secrets here,
 * before the chat stores, returns or sends on any of it.
 */
export async function runCall(
  call: ClaimedCall,
  target: RunTarget,
  stop: AbortSignal,
  record: CallRecord,
): Promise<JobOutcome | undefined> {
  if (target.kind === "missing") return attempts(call, target, stop, record);
  const clean = redactor(target.secrets);
  const progress = record.progress;
  const cleanRecord = progress
    ? { ...record, progress: (p: ProgressParams) => progress.call(record, redactDeep(p, clean)) }
    : record;
  const outcome = await attempts(call, target, stop, cleanRecord);
  return outcome && redactDeep(outcome, clean);
}

async function attempts(
  call: ClaimedCall,
  target: RunTarget,
  stop: AbortSignal,
  record: CallRecord,
): Promise<JobOutcome | undefined> {
  const args = JSON.parse(call.tool_args) as Record<string, unknown>;
  const refused = refusal(target, args, record.allowPrivateEgress);
  if (refused) return { state: "error", error: refused, error_type: "invalid_arguments", attempt: call.attempt };
  const callable = target as Callable;
  for (let attempt = call.attempt; ; ) {
    const remaining = call.deadline_at - Date.now();
    if (remaining <= 0 || stop.aborted) return undefined;
    const result = await attemptOnce(callable, call, args, attempt, stop, remaining, record);
    // stopped or past the deadline: not an `error` (docs/api.md#attempts-and-retries)
    if (result === "stopped") return undefined;
    // Not retried: a call that hung once after starting its work is no likelier to finish again.
    if (result === "stalled") {
      return { state: "timeout", error: stalledError(call.idle_seconds!), error_type: "idle_timeout", attempt };
    }
    if (result.kind === "done") {
      const content = result.content ? { content: result.content } : {};
      return result.state === "success"
        ? { state: "success", result: result.result, attempt, ...content }
        : { state: "error", error: result.error, error_type: result.error_type, attempt, ...content };
    }
    // `http_request` is never retried (docs/api.md#attempts-and-retries).
    const retry = callable.kind !== "http_request" && isRetryable(result.failure, call.read_only);
    const delay = backoffMs(attempt, result.failure.kind === "status" ? result.failure.retryAfterMs : undefined);
    if (!retry || Date.now() + delay >= call.deadline_at) {
      const ambiguous = result.failure.kind === "network" && !call.read_only;
      if (ambiguous) return { state: "error", error: OUTCOME_UNKNOWN_ERROR, error_type: "outcome_unknown", attempt };
      const error_type = result.failure.kind === "status" ? "http_status" : "unavailable";
      return { state: "error", error: result.error, error_type, attempt };
    }
    attempt += 1;
    await record.settled(attempt);
    await sleep(delay, stop);
    if (stop.aborted) return undefined;
    await record.sending(attempt);
  }
}

async function attemptOnce(
  target: Callable,
  call: ClaimedCall,
  args: Record<string, unknown>,
  attempt: number,
  stop: AbortSignal,
  remaining: number,
  record: CallRecord,
): Promise<AttemptResult | "stopped" | "stalled"> {
  const bound = boundedSignal(stop, remaining);
  const { allowPrivateEgress, meter } = record;
  const watch = call.idle_seconds ? new StallWatch(bound.signal, call.idle_seconds * 1000) : undefined;
  try {
    if (target.kind === "mcp") {
      const reported = record.progress;
      const onProgress =
        watch || reported
          ? (p: ProgressParams) => {
              watch?.progressed();
              reported?.(p);
            }
          : undefined;
      const mcpCall = () =>
        callMcpTool(target.endpoint, target.tool, args, {
          ...(call.trace ? { trace: call.trace } : {}),
          signal: watch?.signal ?? bound.signal,
          remainingMs: remaining,
          allowPrivateEgress,
          ...(onProgress ? { onProgress } : {}),
        });
      return await (meter ? meter.during(2, mcpCall) : mcpCall());
    }
    const send = meter?.wrap();
    const ctx: AttemptContext = {
      job_id: call.job_id,
      chat_id: call.chat_id,
      tool_name: call.tool_name,
      tool_args: args,
      attempt,
      signal: bound.signal,
      allowPrivateEgress,
      send,
      ...(call.trace ? { trace: call.trace } : {}),
    };
    return await (target.kind === "http_tool" ? callTenantTool(target, ctx) : callHttpRequest(target, ctx));
  } catch (e) {
    if (watch?.stalled && !bound.signal.aborted) return "stalled";
    if (bound.signal.aborted) return "stopped";
    throw e;
  } finally {
    watch?.release();
    bound.release();
  }
}

/** The error a call ends with when it reported progress and then none for `limits.tool_idle_seconds`. */
export const stalledError = (seconds: number) => `Stalled: no progress for ${seconds} s.`;

/** Why this call must not be made at all, checked at run time (the configuration may have changed). */
function refusal(target: RunTarget, args: Record<string, unknown>, allowPrivateEgress: boolean): string | undefined {
  if (target.kind === "missing") return target.message;
  const url = target.kind === "http_tool" ? target.url : target.kind === "mcp" ? target.endpoint.url : String(args.url);
  const problem = egressProblem(url, allowPrivateEgress);
  return problem ? toolUrlRefused(problem) : undefined;
}
