/**
 * Wire schemas of the API, the source of `/openapi.json` (SPEC §3.5). Requests
 * are validated by the lenient parsers in `src/calls` and `src/jobs` (models
 * write loose JSON), so these schemas describe what a well-formed call looks like and what
 * every answer contains.
 */
import { z } from "zod";
import { MAX_LISTED_CHILDREN, MAX_LISTED_DESCENDANTS } from "../chats/chat-tree";

export const jobState = z.enum(["pending", "running", "success", "error", "cancelled", "timeout"]);

/** What a model sees in the `parallel` tool's schema: the one shape it needs to write. */
export const toolCallItem = z
  .object({
    tool_name: z.string().describe("Tool to run; `tool:method` sets `tool_args.action`."),
    tool_args: z.record(z.string(), z.unknown()),
  })
  .describe("One tool call. Also accepted: {tool,args}, OpenAI {type:'function',function:{name,arguments}}, {name,arguments}.");

export const parallelArgs = z
  .object({
    tool_calls: z
      .union([z.array(toolCallItem), z.string()])
      .optional()
      .describe("Calls to start as jobs (aliases: calls, items); a JSON string of the array is accepted."),
    job_ids: z.union([z.string(), z.array(z.string())]).optional().describe("Existing jobs to await, collect or cancel."),
    action: z.enum(["start", "background", "await", "wait", "collect", "cancel"]).optional(),
    wait: z.union([z.boolean(), z.string()]).optional().describe("Wait for the jobs; default true unless action is start, background or collect."),
    timeout: z.union([z.number().int().positive(), z.string()]).optional().describe("Seconds this call may wait (default 300, capped by max_wait_seconds)."),
    job_timeout: z.union([z.number().int().positive(), z.string()]).optional().describe("Hard deadline in seconds for each started job."),
  })
  .describe("The `tool_args` of a `parallel` call, or the whole {tool_name:'parallel', tool_args} envelope.");

/** An MCP tool's `notifications/progress`, as a job keeps it. */
export const progress = z.object({
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().optional().describe("At most 500 characters."),
});

export const snapshot = z.object({
  job_id: z.string(),
  tool_name: z.string(),
  tool_call_id: z.string().optional().describe("The id of the call this job answers, when the call had one."),
  state: jobState,
  duration_seconds: z.number(),
  queue_position: z.number().int().optional(),
  context_id: z.string().optional(),
  result: z.string().optional(),
  result_truncated: z.literal(true).optional(),
  error: z.string().optional(),
  usage: z.record(z.string(), z.number()).optional().describe("LLM calls, tokens and tool calls of a subordinate's subtree."),
  progress: progress.optional().describe("The last progress a running MCP tool reported (written at most once a second); absent once the job ends."),
  wait_timed_out: z.literal(true).optional(),
});

export const resultsPayload = z.object({
  status: z.enum(["success", "partial", "error", "cancelled", "running", "waiting"]),
  jobs: z.array(snapshot),
  wait_timeout: z.literal(true).optional(),
  instruction: z.string().optional(),
});

export const startedPayload = z.object({
  status: z.literal("started"),
  jobs: z.array(snapshot),
  instruction: z.string(),
});

export const errorBody = z.object({
  status: z.literal("error"),
  error: z.looseObject({ code: z.string(), message: z.string() }),
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
  context_id: z.string().nullable(),
  usage: z.record(z.string(), z.number()).nullable(),
  collected_at: z.string().nullable(),
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

const childChat = z.object({ chat_id: z.string(), name: z.string(), level: z.number().int(), running_jobs: z.number().int() });

export const chatInfo = z.object({
  chat_id: z.string(),
  parent_chat_id: z.string().nullable(),
  level: z.number().int(),
  name: z.string(),
  children: z.array(childChat),
  running_jobs: z.number().int(),
});

/**
 * A listed chat and, nested, its descendants: every node has the same shape. Written out level by
 * level (max_depth is at most 5): a recursive schema would need a `$ref` that an inline OpenAPI
 * schema cannot resolve.
 */
const listedChat = (below: z.ZodType) =>
  z.object({
    chat_id: z.string(),
    parent_chat_id: z.string().nullable(),
    level: z.number().int(),
    name: z.string(),
    created_at: z.string(),
    last_activity: z.string(),
    children: z
      .array(below)
      .describe(`Oldest first: a chat's newest ${MAX_LISTED_CHILDREN} children at most, and ${MAX_LISTED_DESCENDANTS} descendants per top-level chat.`),
    more_children: z.number().int().optional().describe("How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all."),
  });
let listedTree: z.ZodType = z.never(); // below level 5 there is nothing
for (let level = 5; level >= 0; level--) listedTree = listedChat(listedTree);

export const chatList = z.object({
  chats: z.array(listedTree).describe("Top-level chats in id order, each with its descendants nested."),
  next_cursor: z.string().nullable(),
});

// The shapes of SPEC §3.1 a bot may post as they came from its SDK. Each call's own id (at most
// 128 printable characters, else ignored) is kept as its job's `tool_call_id`.
const callId = (what: string) => z.string().describe(`${what}; kept as the job's tool_call_id (at most 128 printable characters, else ignored).`);
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

const geminiFunctionCall = z.object({ name: z.string(), args: objectArgs.optional(), id: callId("The call's id, when Gemini gives one").optional() });
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
      .describe("Calls to start as jobs (aliases: calls, items), in any accepted shape (Agent Zero, OpenAI, Anthropic, AI SDK, Gemini); a JSON string of the array is accepted."),
  })
  .describe("The `tool_args` of a `parallel` call, or the whole {tool_name:'parallel', tool_args} envelope.");

export const toolCallsBody = z.union([
  z.object({
    tool_calls: z.array(anyToolCall).describe("The tool calls of one assistant message, each with its id."),
    timeout: z.union([z.number().int().positive(), z.string()]).optional().describe("Seconds this request may wait (capped by max_wait_seconds)."),
  }),
  z.array(anyToolCall),
]);

export const toolCallResult = z.object({
  tool_call_id: z.string(),
  name: z.string(),
  job_id: z.string().nullable(),
  job_ids: z.array(z.string()).optional().describe("A `parallel` call's jobs: the ones it named, then the ones it started."),
  state: jobState,
  content: z.string().optional().describe("The result text, `Error: <message>`, or a `parallel` call's payload; absent while active."),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});

export const toolCallsAnswer = z.object({
  status: z.enum(["success", "partial", "error", "cancelled", "running", "waiting"]),
  batch_id: z.string().nullable(),
  results: z.array(toolCallResult).describe("One entry per call, in the original order."),
});

export const toolsAnswer = z.object({
  tools: z.array(z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) })),
  prompts: z.record(z.string(), z.string()),
});

const rfc3339 = z.iso.datetime({ precision: 3 });

/** One kept event's webhook delivery (SPEC §6 v1.2); each status carries its own time. */
export const delivery = z.object({
  id: z.string().describe("The event id: the webhook-id of every attempt, a redelivery's too."),
  type: z.string(),
  seq: z.number().int(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int().describe("Attempts in the current schedule (a redelivery starts a fresh one)."),
  last_status: z.number().int().nullable().describe("The receiver's HTTP status at the last attempt; null: no answer, or no attempt yet."),
  last_error: z.string().nullable(),
  next_attempt_at: rfc3339.optional().describe("Pending: when the next attempt is due."),
  delivered_at: rfc3339.optional().describe("Delivered: when the receiver answered 2xx."),
  failed_at: rfc3339.optional().describe("Failed: when delivery gave up."),
});

export const deliveryList = z.object({ events: z.array(delivery) });

export const webhookTestAnswer = z.object({
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when none came (no answer in 10 s, a network error, a URL egress refuses)."),
  error: z.string().optional().describe("What went wrong, as what the same answer would do to real events; absent on a plain 2xx."),
  duration_ms: z.number().int(),
});

/** What `POST /v1/webhook/test` sends: signed like every event, about the tenant only. */
export const webhookTestEvent = z.object({
  id: z.string(),
  type: z.literal("webhook.test"),
  timestamp: z.string(),
  data: z.object({ tenant: z.string() }),
});

export const ticketRequest = z.object({ chat_id: z.string().optional().describe("Limit the ticket to this chat's stream.") });
export const ticketAnswer = z.object({ ticket: z.string(), expires_in: z.literal(60) });

/** What every event's `data` starts with; `truncated` when result texts were left out (SPEC §6). */
const eventData = <T extends z.core.$ZodLooseShape>(own: T) =>
  z.looseObject({
    tenant: z.string(),
    chat_id: z.string(),
    parent_chat_id: z.string().nullable(),
    root_chat_id: z.string(),
    seq: z.number().int().describe("Increases per chat: order events by it, since retries can reorder deliveries."),
    truncated: z.literal(true).optional().describe("Result texts were left out to keep the event under 256 KiB: await or read the jobs."),
    ...own,
  });

const event = <K extends string, T extends z.core.$ZodLooseShape>(type: K, own: T) =>
  z.object({
    id: z.string().describe("evt_…; also the webhook-id header of a delivery."),
    type: z.literal(type),
    timestamp: z.string(),
    data: eventData(own),
  });

const subagentFields = { job_id: z.string(), tool_call_id: z.string().optional(), context_id: z.string(), agent: z.string(), label: z.string() };

/** One event, as webhooks deliver it and live streams send it (docs/api.md, "Events and webhooks"). */
export const eventEnvelope = z.discriminatedUnion("type", [
  event("chat.created", { name: z.string(), level: z.number().int() }),
  event("chat.updated", { name: z.string() }),
  event("job.started", {
    job_id: z.string(),
    batch_id: z.string(),
    tool_name: z.string(),
    tool_call_id: z.string().optional(),
    context_id: z.string().optional(),
  }),
  event("job.finished", { batch_id: z.string(), ...snapshot.shape }),
  event("job.progress", { job_id: z.string(), batch_id: z.string(), tool_name: z.string(), progress }).describe(
    "Live streams only: never kept, replayed or sent to webhooks; its `seq` is that of the chat's latest kept event.",
  ),
  event("batch.finished", { batch_id: z.string(), results: resultsPayload }),
  event("subagent.started", subagentFields),
  event("subagent.finish", {
    ...subagentFields,
    status: jobState,
    result: z.string().nullable().optional(),
    result_truncated: z.literal(true).optional(),
    error: z.string().nullable().optional(),
    usage: z.record(z.string(), z.number()).nullable(),
  }),
  event("chat.idle", {}),
]);

/** A message of the tenant-wide stream: the event plus the cursor to resume after. */
export const tenantStreamEvent = z.intersection(eventEnvelope, z.object({ cursor: z.number().int() }));

/** Sent first on a resumed stream when some missed messages are gone: reload state, then carry on. */
export const cursorExpired = z.object({ type: z.literal("cursor.expired"), oldest: z.number().int() });
