/**
 * What crosses the `jobs` and `calls` queues and the RPC boundaries between the worker, the
 * ChatDOs and the TenantDO. Queue messages carry ids only (docs/architecture.md#platform-rules), never
 * arguments or results, so a message leaks nothing and stays tiny.
 */
import type { ErrorType } from "../api/error-types";
import type { Refusal } from "../http/errors";
import type { FlowRule } from "../config/flow-rules";
import type { Usage as UsageFigures } from "../usage/usage";
import type { ApprovalRule } from "../config/approval-rules";
import type { Budget } from "../budgets/budget";
import type { ParallelCommand } from "./parallel-command";
import type { ChatLimits } from "../config/chat-limits";
import type { ResultsPayload, StartedPayload, Snapshot } from "./payloads";
import type { ContentPart } from "../tools/mcp-content";
import type { RunTarget } from "../tools/executors";
import type { ConfigCheck } from "../objects/tenant-cache";
import type { CompletionRequest, LlmReply, LlmTarget } from "../agents/llm";
import type { BatchTrace } from "../telemetry/trace-context";

/** A batch's queue copy: one message per batch and chat (docs/architecture.md#platform-rules). */
export interface JobsMessage {
  tenant: string;
  chat_id: string;
  jobs: { job_id: string; attempt: number }[];
}

/**
 * A child chat's model request for a Worker runner (docs/architecture.md#model-requests), on the
 * `calls` queue: the turn and the lease of its ask. The runner takes the request itself from the
 * chat when it claims the ask, so the conversation and the provider's key never enter the queue.
 */
export interface ModelAskMessage {
  tenant: string;
  chat_id: string;
  ask: { turn_id: string; lease: string };
}

/** What a runner takes with the ask it claimed: where the request goes, under which egress rules, and the request. */
export interface ClaimedAsk {
  target: LlmTarget;
  /** ALLOW_PRIVATE_EGRESS as the chat read it at the claim: `base_url` is checked against it at every send. */
  allow_private_egress: boolean;
  request: CompletionRequest;
  /** `traceparent` (and `tracestate`) for the request's `chat` span, when the turn's trace is kept. */
  trace?: Record<string, string>;
}

/**
 * A runner's report on an ask: the model's reply, or the error the request ended with, and when the request
 * began and ended (the `chat` span's times; absent from runners of earlier versions).
 */
export type AskAnswer = ({ reply: LlmReply } | { error: string }) & { started_at?: number; ended_at?: number };

/** The one-job message of earlier versions: still read, since a deploy can leave some in the queue. */
export interface JobMessage {
  tenant: string;
  chat_id: string;
  job_id: string;
  attempt: number;
}

/** The limits travel with every request to a chat and down to its children; the config owns their shape. */
export type { ChatLimits } from "../config/chat-limits";

/**
 * A request's delivery options (query parameters, docs/api.md#the-parallel-route): where its events go
 * besides the webhook.
 */
/** What a request asks of its batch's outcome, beside the calls: query parameters and headers, never model-written. */
export interface Delivery {
  callback_url: string | null;
  /** `?notify=` as given (JSON text), e.g. {"telegram_chat_id": 123}. */
  notify: string | null;
  /** `?metadata=` or `Fanout-Metadata` as compact JSON, echoed on the batch's events and records. */
  metadata: string | null;
}

/** The calling agent's policy, for checks that need the chat's state (continuations). */
export interface Caller {
  agent: string;
  task_rules: [string, "allow" | "deny"][];
}

/** What every job-starting request brings the chat, whatever its route (`/parallel`, `/spawn`, a rerun, `/tool-calls`). */
export interface StartFields {
  tenant: string;
  chat_id: string;
  limits: ChatLimits;
  caller: Caller;
  delivery: Delivery;
  /** The tenant's flow rules (docs/api.md#flow-control); absent when it has none. */
  flow?: FlowRule[];
  /** The tenant's approval rules (docs/api.md#approvals); absent when it has none. */
  approvals?: ApprovalRule[];
  /**
   * The batch's budget (docs/api.md#budgets): the configured one, lowered by `?budget=`; absent when neither
   * sets one.
   */
  budget?: Budget;
  idempotency?: { key: string; fingerprint: string };
  /**
   * The worker's latest check of the tenant's config: the chat's copy of it and of the targets is as current
   * (`vouchFor`).
   */
  config_check?: ConfigCheck;
  /** The trace the batch belongs to (docs/api.md#traces), decided by the worker; absent when none is kept. */
  trace?: BatchTrace;
}

export interface BatchRequest extends StartFields {
  route: "parallel" | "spawn" | "rerun";
  command: ParallelCommand;
  /** A rerun (docs/api.md#rerun): its batch, the job each of `command.jobs` runs again, the jobs carried over. */
  rerun?: { of: string; jobs: string[]; carried: string[] };
}

/**
 * A request that waits for jobs still active: the worker waits, off the chat
 * (docs/architecture.md#awaits), at most `wait_ms`, then asks the chat for the answer.
 */
export interface AwaitTicket {
  job_ids: string[];
  wait_ms: number;
}

/** A batch's answer once any wait is over. */
export type BatchResult = { ok: true; payload: ResultsPayload | StartedPayload } | Refusal;
export type BatchAnswer = BatchResult | { ok: true; awaiting: AwaitTicket };

/**
 * Where a waiting request opens its socket to the chat, and the one message it gets there: every job it named
 * has ended. A request that names `answer` (its `max_result_chars`) is sent its `BatchResult` as JSON
 * instead, unless that is too long for one message.
 */
export const AWAIT_PATH = "/await";
export const JOBS_ENDED = "ended";
/**
 * A waiting request that asked for it (`?progress=1`) hears each MCP progress of a job it waits for,
 * as this prefix and `{job_id, progress, total?, message?}`.
 */
export const JOB_PROGRESSED = "progress:";

/** What a claim of a job yields: what its call (or hand-over to a child chat) needs. */
export type ClaimResult =
  | {
      status: "claimed";
      lease: string;
      attempt: number;
      tool_name: string;
      tool_args: string;
      read_only: boolean;
      deadline_at: number;
      kind: "tool" | "subordinate";
      /** Subordinates: the child chat, and the request handed to it (JSON). */
      context_id: string | null;
      spec: string | null;
    }
  /** The built-in `wait`: no call, its timer ends it. */
  | { status: "handled" }
  /** Already terminal (finished, cancelled, timed out) or purged: drop the message. */
  | { status: "finished" };

/** What a claimed tool job's call needs; the chat claimed it, so `attempt` is the one it recorded as sent. */
export interface ClaimedCall {
  job_id: string;
  chat_id: string;
  tool_name: string;
  /** The arguments as stored (JSON). */
  tool_args: string;
  read_only: boolean;
  deadline_at: number;
  attempt: number;
  /** `limits.tool_idle_seconds`, for an MCP call: once it has reported progress, no more for this long ends it. */
  idle_seconds?: number;
  /** `traceparent` (and `tracestate`) for the job's span, when its trace is kept (docs/api.md#traces). */
  trace?: Record<string, string>;
}

/**
 * A call the chat claimed and hands to a runner (docs/architecture.md#where-a-call-runs). The runner
 * reports the outcome, and any retry before it leaves, to the chat under `lease`, which it renews.
 */
export interface RunnerCall {
  tenant: string;
  chat_id: string;
  lease: string;
  /** The job's batch, handed back with the outcome so the chat ends the job without reading it first. */
  batch_id: string;
  call: ClaimedCall;
  target: RunTarget;
  /** What the call counts against its host's budget: an MCP call holds 2 connections. */
  weight: number;
}

/** A runner's call ended: its outcome, reported to the chat under the lease it was claimed with. */
export interface RunnerOutcome {
  job_id: string;
  lease: string;
  batch_id: string;
  outcome: JobOutcome;
}

/** What a job and its subtree took (docs/api.md#usage-and-cost). */
export type Usage = UsageFigures;

/** `content`: an MCP result's parts as the server sent them (the job keeps them, bounded, beside the text). */
export type JobOutcome =
  | { state: "success"; result: string; attempt: number; usage?: Usage; content?: ContentPart[] }
  | { state: "error"; error: string; error_type: ErrorType; attempt: number; usage?: Usage; content?: ContentPart[] }
  /** A child that made no progress for `subagent_idle_seconds`. */
  | { state: "timeout"; error: string; error_type: ErrorType; attempt: number; usage?: Usage };

/** What a parent hands its child chat to run one subordinate job. */
export interface TurnRequest {
  tenant: string;
  chat_id: string;
  parent_chat_id: string;
  /** The top-level chat of the tree, which counts the per-tree subagent cap. */
  root_chat_id: string;
  parent_job_id: string;
  lease: string;
  deadline_at: number;
  level: number;
  profile: string;
  name: string;
  message: string;
  attachments: string[];
  /** spawn_task `tools`: narrows the profile's tools. */
  tools?: string[];
  /** spawn_task `context: "fork"`: the parent's recent agent-loop messages, as text. */
  forked?: string;
  limits: ChatLimits;
  /** The parent job's request metadata (compact JSON): the child's jobs carry it too. */
  metadata?: string | null;
  /** The budget the parent job counts against (JSON of `BudgetScope`): the child's work counts against it too. */
  budget?: string | null;
  /** The parent job's trace context (JSON of `JobTrace`): the turn's spans are children of its span. */
  trace?: string | null;
}

export type CompleteResult = { status: "recorded" } | { status: "stale" } | { status: "late" };

export interface ChatInfo {
  chat_id: string;
  parent_chat_id: string | null;
  level: number;
  name: string;
  children: { chat_id: string; name: string; level: number; running_jobs: number; waiting_jobs: number }[];
  running_jobs: number;
  /** Of `running_jobs`, those not started yet: waiting at a gate, or for their turn or a slot. */
  waiting_jobs: number;
  /** The latest of the chat's creation and its kept jobs' acceptance, claim and end (ISO 8601). */
  last_activity: string;
}

export type { Snapshot };
