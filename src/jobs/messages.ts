/**
 * What crosses the `jobs` queue and the RPC boundaries between the worker, the
 * ChatDO and a job's runner. Queue messages carry ids only (SPEC §1), never
 * arguments or results, so a message leaks nothing and stays tiny.
 */
import type { Refusal } from "../http/errors";
import type { ParallelCommand } from "../parallel/parse-request";
import type { Limits } from "../config/schema";
import type { ResultsPayload, StartedPayload, Snapshot } from "./payloads";

export interface JobMessage {
  tenant: string;
  chat_id: string;
  job_id: string;
  attempt: number;
}

export type ChatLimits = Pick<
  Limits,
  "max_active_jobs_per_chat" | "max_result_chars" | "retention_seconds" | "max_stored_result_bytes"
>;

export interface BatchRequest {
  tenant: string;
  chat_id: string;
  route: "parallel";
  command: ParallelCommand;
  limits: ChatLimits;
  idempotency?: { key: string; fingerprint: string };
}

export type BatchAnswer = { ok: true; payload: ResultsPayload | StartedPayload } | Refusal;

/** What a runner gets when it claims a job. */
export type ClaimResult =
  | {
      status: "claimed";
      lease: string;
      attempt: number;
      tool_name: string;
      tool_args: string;
      read_only: boolean;
      deadline_at: number;
    }
  /** The ChatDO runs it itself (the built-in `wait`): the runner has nothing to do. */
  | { status: "handled" }
  /** Already terminal (finished, cancelled, timed out) or purged: drop the message. */
  | { status: "finished" };

export type JobOutcome =
  | { state: "success"; result: string; attempt: number }
  | { state: "error"; error: string; attempt: number };

export type CompleteResult = { status: "recorded" } | { status: "stale" } | { status: "late" };

export interface ChatInfo {
  chat_id: string;
  parent_chat_id: string | null;
  level: number;
  name: string;
  children: { chat_id: string; name: string; level: number; running_jobs: number }[];
  running_jobs: number;
}

export type { Snapshot };
