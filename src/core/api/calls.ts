/**
 * Wire schemas of the calls a bot or model writes (docs/api.md#arguments-and-call-shapes,
 * docs/api.md#companion-routes, docs/api.md#tiered-execution-and-the-tool-calls-route), for
 * `/openapi.json`: the `parallel` tool's arguments, the tool-call shapes of each
 * SDK, `/tool-calls` and its answer, and `/v1/tools`. Requests are validated by
 * the lenient parsers in `src/core/calls` and `src/core/jobs` (models write loose JSON),
 * so these schemas describe what a well-formed call looks like.
 */
import { z } from "zod";
import { BATCH_STATUSES } from "./job-states";
import { errorType, jobState, retryableFlag, traceId } from "./jobs";

/** What a model sees in the `parallel` tool's schema: the one shape it needs to write. */
export const toolCallItem = z
  .object({
    tool_name: z.string().describe("Tool to run; `tool:method` sets `tool_args.action`."),
    tool_args: z.record(z.string(), z.unknown()),
  })
  .describe(
    "One tool call. Also accepted: {tool,args}, OpenAI {type:'function',function:{name,arguments}}, {name,arguments}.",
  );

export const parallelArgs = z
  .object({
    tool_calls: z
      .union([z.array(toolCallItem), z.string()])
      .optional()
      .describe("Calls to start as jobs (aliases: calls, items); a JSON string of the array is accepted."),
    job_ids: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe("Existing jobs to await, collect or cancel."),
    action: z.enum(["start", "background", "await", "wait", "collect", "cancel"]).optional(),
    wait: z
      .union([z.boolean(), z.string()])
      .optional()
      .describe("Wait for the jobs; default true unless action is start, background or collect."),
    timeout: z
      .union([z.number().int().positive(), z.string()])
      .optional()
      .describe("Seconds this call may wait (default 300, capped by max_wait_seconds)."),
    job_timeout: z
      .union([z.number().int().positive(), z.string()])
      .optional()
      .describe("Hard deadline in seconds for each started job."),
  })
  .describe("The `tool_args` of a `parallel` call, or the whole {tool_name:'parallel', tool_args} envelope.");

// The call shapes a bot may post as they came from its SDK (docs/api.md#arguments-and-call-shapes). Each call's own id
// (at most 128 printable characters, else ignored) is kept as its job's `tool_call_id`.
const callId = (what: string) =>
  z.string().describe(`${what}; kept as the job's tool_call_id (at most 128 printable characters, else ignored).`);
const objectArgs = z.record(z.string(), z.unknown());
// As loose as the SDKs' own types (`input: unknown`), so their calls can be passed on as they are.
const sdkArgs = z.unknown().describe("The arguments: an object, or JSON text of one.");

const agentZeroToolCall = toolCallItem.extend({ tool_call_id: callId("Optional id of the call").optional() });

const openaiToolCall = z
  .object({
    id: callId("The call's id"),
    type: z.literal("function").optional(),
    function: z.object({ name: z.string(), arguments: z.string().describe("JSON text of the arguments.") }),
  })
  .describe("OpenAI chat-completions tool call.");

const anthropicToolUse = z
  .object({ type: z.literal("tool_use"), id: callId("The block's id"), name: z.string(), input: sdkArgs })
  .describe("Anthropic tool_use content block.");

const aiSdkToolCall = z
  .object({
    type: z.literal("tool-call").optional(),
    toolCallId: callId("The call's id"),
    toolName: z.string(),
    input: sdkArgs.optional(),
    args: z.unknown().optional().describe("Older AI SDK versions' name for input."),
  })
  .describe("Vercel AI SDK tool call.");

const geminiFunctionCall = z.object({
  name: z.string(),
  args: objectArgs.optional(),
  id: callId("The call's id, when Gemini gives one").optional(),
});
const geminiPart = z
  .union([z.object({ functionCall: geminiFunctionCall }), z.object({ function_call: geminiFunctionCall })])
  .describe("Gemini content part with a function call (function_call in the Python SDK).");

export const anyToolCall = z.union([agentZeroToolCall, openaiToolCall, anthropicToolUse, aiSdkToolCall, geminiPart]);

/** `/parallel`'s body as the API takes it: the `parallel` tool's arguments, with calls in any shape. */
export const parallelBody = parallelArgs
  .extend({
    tool_calls: z
      .union([z.array(anyToolCall), z.string()])
      .optional()
      .describe(
        "Calls to start as jobs (aliases: calls, items), in any accepted shape (Agent Zero, OpenAI, Anthropic, AI SDK, Gemini); a JSON string of the array is accepted.",
      ),
  })
  .describe("The `tool_args` of a `parallel` call, or the whole {tool_name:'parallel', tool_args} envelope.");

export const toolCallsBody = z.union([
  z.object({
    tool_calls: z.array(anyToolCall).describe("The tool calls of one assistant message, each with its id."),
    timeout: z
      .union([z.number().int().positive(), z.string()])
      .optional()
      .describe("Seconds this request may wait (capped by max_wait_seconds)."),
    wait: z
      .boolean()
      .optional()
      .describe(
        "false: answer at once with each call's job and state (status `started`); the results come in `batch.finished`.",
      ),
    context: z
      .unknown()
      .optional()
      .describe(
        "Any JSON up to 64 KiB the bot needs to continue its turn (its conversation so far, the assistant message): kept with the batch and returned as `data.context` on `batch.finished`; never shown to a model or a tool.",
      ),
  }),
  z.array(anyToolCall),
]);

export const toolCallResult = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  job_id: z.string().nullable(),
  job_ids: z
    .array(z.string())
    .optional()
    .describe("A `parallel` call's jobs: the ones it named, then the ones it started."),
  state: jobState,
  content: z
    .string()
    .optional()
    .describe("The result text, `Error: <message>`, or a `parallel` call's payload; absent while active."),
  content_truncated: z
    .literal(true)
    .optional()
    .describe("In an event too large to carry it whole: `content` is its first 1,000 characters."),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  error_type: errorType.optional().describe("A job that ended without success: why (docs/api.md#why-a-job-failed)."),
  retryable: retryableFlag.optional(),
});

export const toolCallsAnswer = z.object({
  status: z
    .enum([...BATCH_STATUSES, "started"])
    .describe("`started`: the request said `wait: false`; the results come in `batch.finished`."),
  batch_id: z.string().nullable(),
  results: z.array(toolCallResult).describe("One entry per call, in the original order."),
  trace_id: traceId.optional(),
});

/** One function definition in OpenAI's form, which the client turns into Anthropic's, the AI SDK's and Gemini's. */
export const toolDefinition = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: z
      .record(z.string(), z.unknown())
      .describe("A JSON Schema of the call's arguments, as OpenAI-style function calling takes it."),
  }),
});

export const toolsAnswer = z.object({
  tools: z.array(toolDefinition),
  prompts: z
    .record(z.string(), z.string())
    .describe("`parallel`, `spawn_task`, `call_subordinate` and `orchestration`, rendered for the agent."),
});
