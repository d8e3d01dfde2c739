/**
 * Wire schemas of jobs (docs/api.md#payloads), for `/openapi.json`: a job's state and
 * progress, the snapshot every payload lists, the results and started
 * payloads, a job's full record and the chat's log rows. `src/core/jobs/payloads.ts`
 * builds these objects and takes its types from here.
 */
import { z } from "zod";
import { ERROR_TYPES } from "./error-types";
import { BATCH_STATUSES, JOB_STATE_NAMES } from "./job-states";
import { waitReasons } from "../gates/order";

export const jobState = z.enum(JOB_STATE_NAMES);

/** Why a job did not succeed (docs/api.md#why-a-job-failed). */
export const errorType = z
  .enum(ERROR_TYPES)
  .describe("Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).");

export const retryableFlag = z
  .boolean()
  .describe(
    "Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error.",
  );

/** An MCP tool's `notifications/progress`, as a job keeps it. */
export const progress = z.object({
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional().describe("At most 500 characters."),
});

/** A batch's request metadata (`?metadata=` or `Fanout-Metadata`), as the bot sent it. */
export const requestMetadata = z
  .record(z.string(), z.unknown())
  .describe(
    "The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs.",
  );

const flowWait = z.object({ rule: z.string(), key: z.string().optional() });

/** What a job, a batch or a chat took (docs/api.md#usage-and-cost): its own and its subtree's. */
export const usage = z.object({
  llm_calls: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  tool_calls: z.number().int(),
  subagents: z.number().int(),
  cost_usd: z.number().optional().describe("With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals."),
});

export const snapshot = z.object({
  job_id: z.string(),
  tool_name: z.string(),
  tool_call_id: z.string().optional().describe("The id of the call this job answers, when the call had one."),
  state: jobState,
  duration_seconds: z.number(),
  queue_position: z
    .number()
    .int()
    .optional()
    .describe("While waiting for a subagent slot: its place in the chat's queue (1 = next)."),
  waiting_for: z
    .enum(waitReasons)
    .optional()
    .describe(
      "Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).",
    ),
  flow: flowWait.optional().describe("While waiting for flow: the rule (and key) it waits at."),
  approval_expires_at: z
    .string()
    .optional()
    .describe("While a person has still to approve the call: when it ends, not made, without a decision."),
  context_id: z.string().optional(),
  rerun_of: z.string().optional().describe("A rerun's job: the job it ran again."),
  result: z.string().optional(),
  result_truncated: z.literal(true).optional(),
  error: z.string().optional(),
  error_type: errorType.optional(),
  retryable: retryableFlag.optional(),
  usage: usage.optional().describe("A subordinate's: its subtree's model requests, tokens, tool calls and subagents."),
  progress: progress
    .optional()
    .describe(
      "The last progress a running MCP tool reported (written at most once a second); absent once the job ends.",
    ),
  wait_timed_out: z.literal(true).optional(),
});

/** The W3C trace id of a kept trace (docs/api.md#traces). */
export const traceId = z
  .string()
  .regex(/^[0-9a-f]{32}$/)
  .describe("The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces).");

export const resultsPayload = z.object({
  status: z.enum(BATCH_STATUSES),
  jobs: z.array(snapshot),
  wait_timeout: z.literal(true).optional(),
  instruction: z.string().optional(),
  trace_id: traceId.optional(),
});

export const startedPayload = z.object({
  status: z.literal("started"),
  jobs: z.array(snapshot),
  instruction: z.string(),
  trace_id: traceId.optional(),
});

export const jobRecord = z.object({
  job_id: z.string(),
  chat_id: z.string(),
  batch_id: z.string(),
  index: z.number().int(),
  tool_name: z.string(),
  tool_call_id: z.string().nullable().describe("The id of the call this job answers; null when the call had none."),
  tool_args: z.record(z.string(), z.unknown()),
  kind: z.enum(["tool", "subordinate"]),
  state: jobState,
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  attempt: z.number().int(),
  deadline_at: z.string(),
  result: z.string().nullable(),
  result_truncated: z.boolean(),
  content: z
    .array(z.looseObject({ type: z.string() }))
    .nullable()
    .describe(
      "An MCP job's result parts as the server sent them (images and audio with their base64 `data`), while `result` has text and placeholders. Bounded like `result`: a part that did not fit is cut or kept without its payload, marked `truncated: true`. Null for other jobs and until the job ends.",
    ),
  error: z.string().nullable(),
  error_type: errorType.nullable().describe("Why the job did not succeed; null while active and on a success."),
  retryable: retryableFlag.nullable(),
  context_id: z.string().nullable(),
  rerun_of: z.string().nullable().describe("A rerun's job: the job it ran again; null otherwise."),
  usage: usage.describe("The job's own and its subtree's: a tool call is one once claimed."),
  collected_at: z.string().nullable(),
  metadata: requestMetadata.nullable(),
  waiting_for: z
    .enum(waitReasons)
    .nullable()
    .describe("Why a pending job has not started yet; null once it has, or when nothing holds it."),
  flow: flowWait.nullable().describe("While waiting for flow: the rule (and key) it waits at."),
  approval_expires_at: z
    .string()
    .nullable()
    .describe("While a person has still to approve the call: when it ends, not made, without a decision."),
  waited: z
    .array(z.object({ for: z.enum(waitReasons), from: z.string(), to: z.string().nullable() }))
    .describe(
      "What the job waited for before it started, in order: each gate, from when it got there to when it left it (null while it still waits). Empty for a job that never waited.",
    ),
  approval: z
    .object({
      status: z.enum(["pending", "approved", "denied", "expired"]),
      expires_at: z.string(),
      decided_at: z.string().nullable(),
      by: z.string().nullable(),
      reason: z.string().nullable(),
    })
    .nullable()
    .describe("A call under an approval rule: the request and its decision; null for any other."),
  trace_id: traceId.optional(),
});

export const logRows = z.object({
  rows: z.array(
    z.object({
      id: z.string(),
      job_id: z.string(),
      type: z.string(),
      heading: z.string(),
      kvps: z.record(z.string(), z.unknown()),
      content: z.string(),
      created_at: z.string(),
      updated_at: z.string(),
    }),
  ),
});
