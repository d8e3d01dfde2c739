/**
 * What crosses the RPC boundary between the worker and a ChatDO for `/tool-calls`
 * (docs/api.md#tiered-execution-and-the-tool-calls-route): one assistant message's calls, admitted or
 * refused each, and the answer in the SDK shapes' call order. The other messages are in `./messages`.
 */
import type { ErrorType } from "../api/error-types";
import type { BatchStatus } from "../api/job-states";
import type { ErrorDetails, Refusal } from "../http/errors";
import type { ParallelCall } from "./call-plan";
import type { JobState } from "./job";
import type { JobSpec } from "./job-spec";
import type { AwaitTicket, StartFields } from "./messages";

type CallError = { code: string; message: string } & ErrorDetails;

/** One call of `/tool-calls`: the job(s) it becomes, or the refusal it already got. */
export interface ToolCallEntry {
  index: number;
  tool_call_id: string;
  name: string;
  spec?: JobSpec;
  /** A `parallel` call: its own jobs plus the earlier ones it names. */
  parallel?: ParallelCall;
  error?: CallError;
}

/** A call once the chat admitted or refused it: what its answer (and a replay) is built from. */
export interface AdmittedToolCall {
  tool_call_id: string;
  name: string;
  error?: CallError;
  job_id?: string;
  /** A `parallel` call: every job it reports (earlier ones first), and how it is answered. */
  parallel?: { job_ids: string[]; started: string[]; wait: boolean; cancel: boolean };
}

export interface ToolCallsRequest extends StartFields {
  entries: ToolCallEntry[];
  /**
   * `tiered`: side-effecting calls one after another after the rest; `parallel`: every call at once
   * (docs/api.md#tiered-execution-and-the-tool-calls-route).
   */
  order: "tiered" | "parallel";
  wait_seconds: number;
  /** False: answer at once that the calls started; their results come in `batch.finished`. */
  wait: boolean;
  /** What the bot needs to continue its turn, as JSON text: kept with the batch, back on `batch.finished`. */
  context?: string;
}

export interface ToolCallResult {
  tool_call_id: string;
  name: string;
  job_id: string | null;
  /** A `parallel` call's jobs (its `job_id` is null). */
  job_ids?: string[];
  state: JobState;
  content?: string;
  error?: CallError;
  /** A job that ended without success: why, and whether running it again may help. */
  error_type?: ErrorType;
  retryable?: boolean;
}

export interface ToolCallsAnswer {
  /** `started`: the request said `wait: false`, and the results come in `batch.finished`. */
  status: BatchStatus | "started";
  batch_id: string | null;
  results: ToolCallResult[];
  /** The batch's trace, when it is kept (docs/api.md#traces). */
  trace_id?: string;
}

/** A `/tool-calls` request waiting for its calls' jobs: what the chat needs to answer once the wait ends. */
export interface ToolCallsAwait extends AwaitTicket {
  stored: { batch_id: string; calls: AdmittedToolCall[] };
  collect: boolean;
}

/** A `/tool-calls` answer once any wait is over. */
export type ToolCallsResult = { ok: true; answer: ToolCallsAnswer } | Refusal;
export type ToolCallsReply = ToolCallsResult | { ok: true; awaiting: ToolCallsAwait };
