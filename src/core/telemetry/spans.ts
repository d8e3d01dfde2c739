/**
 * The spans fanout exports (docs/api.md#traces), built from what the chat keeps anyway: a job's
 * row and its trace context, a batch's rows, a model request's reply. Named as the OpenTelemetry
 * GenAI semantic conventions name them (the incubating constants of
 * `@opentelemetry/semantic-conventions`); fanout's own attributes are `fanout.*`.
 *
 * A span here is plain JSON (`SpanRecord`): it crosses an RPC to the invocation that exports it,
 * which encodes it as OTLP (`./otlp`) and redacts its content there (`./exporter`).
 */
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { failureOf } from "../api/error-types";
import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
import type { JobState } from "../api/job-states";
import type { WaitReason } from "../gates/order";
import { addUsage, jobUsage, type Usage } from "../usage/usage";
import type { JobTrace } from "./trace-context";

export type AttributeValue = string | number | boolean | string[];

/** One span, as the chat builds it and the exporter encodes it; times are epoch milliseconds. */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  /** Absent for a root span (a batch whose caller sent no context). */
  parent_span_id?: string;
  name: string;
  kind: "internal" | "client";
  start_ms: number;
  end_ms: number;
  attributes: Record<string, AttributeValue>;
  events?: { name: string; at_ms: number; attributes: Record<string, AttributeValue> }[];
  /** Set on failure: the span's status is ERROR with this message. */
  error?: string;
}

/** Each content attribute is cut to this many bytes of UTF-8, after redaction (in the exporter). */
export const MAX_CONTENT_BYTES = 8192;
/**
 * What a span carries of each content attribute on its way to the exporter: enough past the final
 * cut that a secret (at most 5 KB, longer in base64) straddling it is still whole when the exporter
 * redacts, and small enough for a batch's spans to cross one RPC.
 */
export const CONTENT_BEFORE_REDACTION_BYTES = 32_768;

/** The attributes that carry content: only with `capture_content`, and redacted before they leave. */
export const CONTENT_ATTRIBUTES: readonly string[] = [
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
];

/** The wait events' name and attributes (docs/api.md#traces). */
export const WAIT_EVENT = "fanout.wait";

/** What a job's span is built from: its row. */
export interface SpanJob {
  job_id: string;
  chat_id: string;
  batch_id: string;
  tool_name: string;
  tool_call_id: string | null;
  tool_args: string;
  kind: "tool" | "subordinate";
  state: JobState;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  attempt: number;
  result: string | null;
  error: string | null;
  context_id: string | null;
  usage: string | null;
  spec: string | null;
  waiting_for: WaitReason | null;
  read_only: number;
  error_type: string | null;
}

/**
 * The `fanout.wait` events of a job: one per gate it waited at, from its arrival there (its
 * acceptance, or leaving the gate before) to leaving it, or to its end if it ended waiting.
 */
export function waitEvents(job: SpanJob, trace: JobTrace): NonNullable<SpanRecord["events"]> {
  const events: NonNullable<SpanRecord["events"]> = [];
  let since = job.created_at;
  const wait = (reason: WaitReason, until: number) => {
    events.push({
      name: WAIT_EVENT,
      at_ms: since,
      attributes: { "fanout.wait.reason": reason, "fanout.wait.duration_ms": Math.max(0, until - since) },
    });
    since = until;
  };
  for (const [reason, left] of trace.w ?? []) wait(reason, left);
  if (job.started_at === null && job.waiting_for !== null && job.completed_at !== null)
    wait(job.waiting_for, job.completed_at);
  return events;
}

/** Cut to `max` bytes of UTF-8 (`MAX_CONTENT_BYTES` by default), never inside a character. */
export function cutContent(text: string, max = MAX_CONTENT_BYTES): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  return new TextDecoder().decode(bytes.slice(0, max)).replace(/\uFFFD$/, "");
}

/** Content as a span carries it to the exporter, which redacts it and then cuts it to `MAX_CONTENT_BYTES`. */
const carried = (text: string) => cutContent(text, CONTENT_BEFORE_REDACTION_BYTES);

const usageAttributes = (usage: Usage): Record<string, number> => ({
  [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt_tokens,
  [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion_tokens,
  "fanout.usage.llm_calls": usage.llm_calls,
  "fanout.usage.tool_calls": usage.tool_calls,
  "fanout.usage.subagents": usage.subagents,
  ...(usage.cost_usd === undefined ? {} : { "fanout.usage.cost_usd": usage.cost_usd }),
});

/** The agent profile a subordinate job ran (its plan's `profile`). */
function agentOf(job: SpanJob): string {
  const plan = job.spec ? (JSON.parse(job.spec) as { profile?: string }) : undefined;
  return plan?.profile ?? "default";
}

/**
 * A job's span once it ended: `execute_tool <tool>` for a tool call, `invoke_agent <agent>` for a
 * subordinate. It runs from the job's acceptance to its end, so the waits before its call are in it.
 */
export function jobSpan(job: SpanJob, trace: JobTrace): SpanRecord {
  const end = job.completed_at ?? job.started_at ?? job.created_at;
  const failed = job.state !== "success";
  const common = {
    "fanout.job_id": job.job_id,
    "fanout.chat_id": job.chat_id,
    "fanout.batch_id": job.batch_id,
    "fanout.state": job.state,
    "fanout.attempts": job.attempt,
    // Why it did not succeed, in the closed list of docs/api.md#why-a-job-failed.
    ...(failed ? { [ATTR_ERROR_TYPE]: failureOf(job)?.error_type ?? job.state } : {}),
  };
  const span = {
    trace_id: trace.t,
    span_id: trace.s,
    parent_span_id: trace.p,
    kind: "internal" as const,
    start_ms: job.created_at,
    end_ms: Math.max(end, job.created_at),
    events: waitEvents(job, trace),
    ...(failed ? { error: job.error ?? job.state } : {}),
  };
  if (job.kind === "subordinate") {
    const agent = agentOf(job);
    return {
      ...span,
      name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: agent,
        ...(job.context_id
          ? { [ATTR_GEN_AI_AGENT_ID]: job.context_id, [ATTR_GEN_AI_CONVERSATION_ID]: job.context_id }
          : {}),
        ...(job.tool_call_id ? { [ATTR_GEN_AI_TOOL_CALL_ID]: job.tool_call_id } : {}),
        ...usageAttributes(jobUsage(job)),
        ...common,
      },
    };
  }
  const content = trace.c
    ? {
        [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: carried(job.tool_args),
        ...(job.state === "success" && job.result !== null
          ? { [ATTR_GEN_AI_TOOL_CALL_RESULT]: carried(job.result) }
          : {}),
      }
    : {};
  return {
    ...span,
    name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${job.tool_name}`,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: job.tool_name,
      // The model asked for the call and fanout runs it on the agent's behalf: a function tool.
      [ATTR_GEN_AI_TOOL_TYPE]: "function",
      ...(job.tool_call_id ? { [ATTR_GEN_AI_TOOL_CALL_ID]: job.tool_call_id } : {}),
      ...common,
      ...content,
    },
  };
}

/**
 * A top-level batch's span, once its last job ended: from its acceptance to that end, a child of
 * the caller's span (a root span when fanout started the trace).
 */
export function batchSpan(jobs: readonly SpanJob[], trace: JobTrace, chatId: string): SpanRecord | undefined {
  if (jobs.length === 0 || trace.bp === undefined) return undefined;
  const start = Math.min(...jobs.map((j) => j.created_at));
  const end = Math.max(...jobs.map((j) => j.completed_at ?? j.created_at));
  return {
    trace_id: trace.t,
    span_id: trace.p,
    ...(trace.bp ? { parent_span_id: trace.bp } : {}),
    name: "fanout.batch",
    kind: "internal",
    start_ms: start,
    end_ms: end,
    attributes: {
      "fanout.chat_id": chatId,
      "fanout.batch_id": jobs[0]!.batch_id,
      "fanout.jobs": jobs.length,
      ...usageAttributes(addUsage(...jobs.map(jobUsage))),
    },
  };
}

/** One model request of a child chat's agent loop, as its runner reported it. */
export interface ModelRequestRecord {
  /** The span the request was sent under (its `traceparent`). */
  span_id: string;
  started_at: number;
  ended_at: number;
  provider: string;
  request_model: string;
  response_model?: string;
  finish_reasons?: string[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Set when the request failed: the error it ended with. */
  error?: string;
  /** With `capture_content`: the conversation sent and the reply, as JSON text. */
  input?: string;
  output?: string;
}

/** `chat <model>`: a model request of an agent loop, a child of its turn's `invoke_agent` span. */
export function chatSpan(request: ModelRequestRecord, turn: JobTrace): SpanRecord {
  return {
    trace_id: turn.t,
    span_id: request.span_id,
    parent_span_id: turn.s,
    name: `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${request.request_model}`,
    kind: "client",
    start_ms: request.started_at,
    end_ms: Math.max(request.ended_at, request.started_at),
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: request.provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: request.request_model,
      ...(request.response_model ? { [ATTR_GEN_AI_RESPONSE_MODEL]: request.response_model } : {}),
      ...(request.finish_reasons?.length ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: request.finish_reasons } : {}),
      ...(request.usage
        ? {
            [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: request.usage.prompt_tokens,
            [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: request.usage.completion_tokens,
          }
        : {}),
      ...(request.error ? { [ATTR_ERROR_TYPE]: "model_error" } : {}),
      ...(turn.c && request.input !== undefined ? { [ATTR_GEN_AI_INPUT_MESSAGES]: carried(request.input) } : {}),
      ...(turn.c && request.output !== undefined ? { [ATTR_GEN_AI_OUTPUT_MESSAGES]: carried(request.output) } : {}),
    },
    ...(request.error ? { error: request.error } : {}),
  };
}

/** Known hosts of OpenAI-compatible providers, by the name the conventions give them. */
const PROVIDERS: [RegExp, string][] = [
  [/(^|\.)openai\.com$/, "openai"],
  [/(^|\.)anthropic\.com$/, "anthropic"],
  [/(^|\.)generativelanguage\.googleapis\.com$/, "gcp.gemini"],
  [/(^|\.)openai\.azure\.com$/, "azure.ai.openai"],
  [/(^|\.)groq\.com$/, "groq"],
  [/(^|\.)deepseek\.com$/, "deepseek"],
  [/(^|\.)mistral\.ai$/, "mistral_ai"],
  [/(^|\.)x\.ai$/, "x_ai"],
  [/(^|\.)perplexity\.ai$/, "perplexity"],
  [/(^|\.)cohere\.(ai|com)$/, "cohere"],
];

/**
 * `gen_ai.provider.name` for an OpenAI-compatible `base_url`: the conventions' name for a provider
 * known by its host, otherwise the host itself (the conventions allow a custom value, and
 * "openai" would claim a provider the request never reached).
 */
export function providerName(baseUrl: string): string {
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return "unknown";
  }
  return PROVIDERS.find(([pattern]) => pattern.test(host))?.[1] ?? host;
}
