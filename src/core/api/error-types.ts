/**
 * Why a job did not succeed (docs/api.md#why-a-job-failed), in one place: the closed list of
 * `error_type`s the wire schemas and the job's row use, how a row ended before the types were kept
 * is typed, and whether running the call again is safe and may help (`retryable`), read from the
 * type, the tool's `read_only` and, for an HTTP status, the status, so it cannot disagree with them.
 */
import type { JobState } from "./job-states";

export const ERROR_TYPES = [
  /** The tool answered an error (`{"error": …}`, an MCP result with `isError`). */
  "tool_error",
  /** The tool answered a non-2xx status. */
  "http_status",
  "timeout",
  /** No progress for the idle limit (a subagent, or an MCP tool that reported progress and then stopped). */
  "idle_timeout",
  /** A side-effecting call whose connection broke after it was sent: it may have run. */
  "outcome_unknown",
  "cancelled",
  /** A person denied the call. */
  "denied",
  /** Nobody decided on the call in time. */
  "approval_expired",
  /** A batch's budget or the tenant's spending limit. */
  "budget_exhausted",
  /** A flow rule or the subagent queue turned the call away. */
  "flow_rejected",
  /** The call could not be made as asked (an origin or URL no longer allowed). */
  "invalid_arguments",
  /** The MCP server failed the call (protocol, transport, session). */
  "mcp_error",
  /** A subagent's model failed, or none is configured. */
  "llm_error",
  /** A subagent ran out of steps or tokens before an answer. */
  "max_steps",
  /** The tool or fanout could not be reached (a network error, an undeliverable job). */
  "unavailable",
] as const;

export type ErrorType = (typeof ERROR_TYPES)[number];

export const OUTCOME_UNKNOWN_ERROR = "Outcome unknown: the tool may have run; not retried.";

/** A status that says the server could not answer now: asking again may help. */
const TRANSIENT_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

/** Types where running a read-only call again may help. */
const TRANSIENT_TYPES: ReadonlySet<ErrorType> = new Set(["timeout", "idle_timeout", "unavailable"]);

/** What a record shows of a job that did not succeed. */
export interface Failure {
  error_type: ErrorType;
  retryable: boolean;
}

interface FailedJob {
  state: JobState;
  error: string | null;
  read_only: number | boolean;
  error_type?: string | null;
}

/**
 * The job's failure, or null for one that succeeded or has not ended. A row ended before the types
 * were kept is typed from its state and text, as the end that wrote it would have typed it.
 */
export function failureOf(job: FailedJob): Failure | null {
  if (job.state !== "error" && job.state !== "timeout" && job.state !== "cancelled") return null;
  const error_type = (job.error_type as ErrorType | null | undefined) ?? typeOfOlderEnd(job);
  return { error_type, retryable: retryable(error_type, job.read_only === 1 || job.read_only === true, job.error) };
}

/** Only a read-only call, and only after an end that says nothing about the call itself. */
export function retryable(type: ErrorType, readOnly: boolean, error: string | null): boolean {
  if (!readOnly) return false;
  if (TRANSIENT_TYPES.has(type)) return true;
  if (type !== "http_status") return false;
  // Its text says the status: fanout writes it (`HTTP 503: …`, `MCP server 'x' answered HTTP 503: …`).
  const status = /\bHTTP (\d{3}):/.exec(error ?? "");
  return status !== null && TRANSIENT_STATUS(Number(status[1]));
}

function typeOfOlderEnd(job: FailedJob): ErrorType {
  if (job.state === "cancelled") return "cancelled";
  if (job.state === "timeout") return "timeout";
  if (job.error === OUTCOME_UNKNOWN_ERROR) return "outcome_unknown";
  if (/^HTTP \d{3}:/.test(job.error ?? "")) return "http_status";
  return "tool_error";
}
