/**
 * `/openapi.json`, generated from the zod schemas: a route table names each
 * operation's schemas and `z.toJSONSchema` writes them out, so the document
 * cannot drift from what the code validates and returns.
 */
import { z } from "zod";
import { configSchema } from "../config/schema";
import { spawnTaskArgs } from "../subagents/schemas";
import { parallelBody, toolCallsAnswer, toolCallsBody, toolsAnswer } from "./calls";
import { chatInfo, chatList, chatTranscript, chatUsage } from "./chats";
import { delivery, deliveryList, webhookTestAnswer, webhookTestEvent } from "./deliveries";
import { errorBody } from "./errors";
import { flowAnswer } from "./flow";
import { telemetryAnswer } from "./telemetry";
import { tenantUsage } from "./usage";
import { mcpAnswer, mcpMessage } from "./mcp";
import { rerunAnswer, rerunBody } from "./rerun";
import { approvalDecision, approvalList } from "./approvals";
import { cursorExpired, eventEnvelope, tenantStreamEvent, ticketAnswer, ticketRequest } from "./events";
import { batchRecord } from "./batches";
import { jobRecord, logRows, resultsPayload, snapshot, startedPayload } from "./jobs";
import { configAnswer, configPatch, PATCH_MEDIA_TYPES } from "./config";

interface Operation {
  method: "get" | "put" | "patch" | "post" | "delete";
  path: string;
  summary: string;
  body?: z.ZodType;
  /** The body's media types; default `application/json`. Several share one schema, under `components` by this name. */
  bodyTypes?: { types: string[]; schemaName: string };
  response?: z.ZodType;
  /** The success status when it is not 200; 405 for a method the path answers only to refuse. */
  status?: 202 | 405;
  text?: boolean;
  query?: string[];
  headers?: string[];
}

const OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/config",
    summary: 'Read the tenant configuration (secrets shown as "***")',
    response: configSchema,
  },
  {
    method: "put",
    path: "/v1/config",
    summary: "Replace the tenant configuration (omitted keys take defaults)",
    body: configSchema,
    response: configAnswer,
  },
  {
    method: "patch",
    path: "/v1/config",
    summary: "Change the named keys of the tenant configuration (JSON Merge Patch, RFC 7396)",
    body: configPatch,
    bodyTypes: { types: PATCH_MEDIA_TYPES, schemaName: "ConfigPatch" },
    response: configAnswer,
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/parallel",
    summary: "Start, await, collect or cancel parallel jobs (Agent Zero `parallel` tool_args)",
    body: parallelBody,
    response: z.union([resultsPayload, startedPayload]),
    query: ["agent", "callback_url", "notify", "metadata", "budget"],
    headers: ["Fanout-Metadata", "traceparent", "tracestate"],
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/batches/{batch_id}/rerun",
    summary:
      "Run a finished batch's failed part again (default: its retryable failures, plus the jobs named), under today's config and gates; answers the whole batch in call order",
    body: rerunBody,
    response: rerunAnswer,
    query: ["agent", "callback_url", "notify", "metadata", "budget"],
    headers: ["Idempotency-Key", "Fanout-Metadata", "traceparent", "tracestate"],
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/tool-calls",
    summary:
      "Run one assistant message's tool calls (OpenAI, Anthropic, AI SDK, Gemini), tiered or all at once (order); answers in call order",
    body: toolCallsBody,
    response: toolCallsAnswer,
    query: ["agent", "callback_url", "notify", "metadata", "budget", "order"],
    headers: ["Fanout-Metadata", "traceparent", "tracestate"],
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/spawn",
    summary: "Start one subagent (spawn_task arguments; wait defaults to false)",
    body: spawnTaskArgs(["default"]).extend({ agent: z.string().optional().describe("Subagent type (profile).") }),
    response: z.union([resultsPayload, startedPayload]),
    query: ["agent", "callback_url", "notify", "metadata", "budget"],
    headers: ["Fanout-Metadata", "traceparent", "tracestate"],
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/mcp",
    summary:
      "fanout as an MCP server (Streamable HTTP, stateless): tools/list, tools/call as jobs, tasks; 2026-07-28 and the handshake versions",
    body: mcpMessage,
    response: mcpAnswer,
    query: ["agent", "metadata", "budget"],
    headers: ["Fanout-Agent", "Fanout-Metadata", "Idempotency-Key", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"],
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/mcp",
    summary: "405: the MCP endpoint is stateless; it has no stream to open",
    status: 405,
  },
  {
    method: "delete",
    path: "/v1/chats/{chat_id}/mcp",
    summary: "405: the MCP endpoint is stateless; it has no session to end",
    status: 405,
  },
  {
    method: "get",
    path: "/v1/tools",
    summary: "Function definitions and prompts for an agent",
    response: toolsAnswer,
    query: ["agent"],
  },
  {
    method: "get",
    path: "/v1/flow",
    summary: "Each flow rule's running and queued calls, its rate's headroom and its busiest keys",
    response: flowAnswer,
  },
  {
    method: "get",
    path: "/v1/telemetry",
    summary: "What the tenant's span exports came to: spans exported and dropped, the latest failure",
    response: telemetryAnswer,
  },
  {
    method: "get",
    path: "/v1/usage",
    summary: "The tenant's spending under `limits.spend`: this period's and the last 90 days' by day",
    response: tenantUsage,
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/jobs/{job_id}/approval",
    summary: "Approve or deny a call that waits for a person (once; the same decision again is a harmless 200)",
    body: approvalDecision,
    response: snapshot,
  },
  {
    method: "get",
    path: "/v1/approvals",
    summary: "The tenant's calls waiting for a decision, or decided, newest first",
    response: approvalList,
    query: ["status", "cursor", "limit"],
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/events",
    summary:
      "With ?status=pending|delivered|failed: the chat's kept events with a webhook target in that state. With Upgrade: websocket: the chat's live stream (?after=<seq>)",
    response: deliveryList,
    query: ["status", "after", "ticket"],
  },
  {
    method: "post",
    path: "/v1/chats/{chat_id}/events/{event_id}/redeliver",
    summary:
      "Send a delivered or failed event again to its own target, or a pending one now: same id, a fresh attempt schedule",
    response: delivery,
    status: 202,
  },
  {
    method: "post",
    path: "/v1/webhook/test",
    summary: "Send a signed webhook.test event to webhook.url once, now, and answer what the receiver said",
    response: webhookTestAnswer,
  },
  {
    method: "get",
    path: "/v1/events",
    summary: "Upgrade: websocket only: every chat's events, each with a cursor (?after=<cursor>)",
    query: ["after", "ticket"],
  },
  {
    method: "post",
    path: "/v1/ws-tickets",
    summary: "A single-use, 60 s ticket for opening a stream from a browser (?ticket=)",
    body: ticketRequest,
    response: ticketAnswer,
  },
  { method: "get", path: "/v1/chats", summary: "List top-level chats", response: chatList, query: ["cursor", "limit"] },
  { method: "get", path: "/v1/chats/{chat_id}", summary: "Chat info", response: chatInfo },
  {
    method: "delete",
    path: "/v1/chats/{chat_id}",
    summary: "Delete a chat and its whole subtree (503 while a part of it cannot be reached yet; the deletion goes on)",
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/jobs",
    summary: "Active and uncollected jobs",
    response: z.object({ jobs: z.array(snapshot) }),
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/jobs/{job_id}",
    summary: "A job's full record until purge",
    response: jobRecord,
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/batches/{batch_id}",
    summary:
      "A batch as one record until its jobs are purged: its state, its jobs in call order, its usage, metadata, context, what it reran and its trace",
    response: batchRecord,
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/job-records",
    summary:
      "A page of the chat's job records, newest first, without `content` (limit 1-100, default 24; `before`: the previous page's `next_before`)",
    response: z.object({ records: z.array(jobRecord.omit({ content: true })), next_before: z.string().nullable() }),
    query: ["limit", "before"],
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/extras",
    summary: "Reminder text of uncollected jobs for the model's context",
    text: true,
  },
  { method: "get", path: "/v1/chats/{chat_id}/log", summary: "Log rows, one per job", response: logRows },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/transcript",
    summary: "A subagent's conversation: each model turn's text and tool calls, with usage",
    response: chatTranscript,
    query: ["limit"],
  },
  {
    method: "get",
    path: "/v1/chats/{chat_id}/usage",
    summary: "What the chat and its subtree took in the last 30 days, and by day",
    response: chatUsage,
  },
];

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
};

const bodyContent = (op: Operation & { body: z.ZodType }) => {
  if (!op.bodyTypes) return { "application/json": { schema: jsonSchema(op.body, "input") } };
  const ref = { $ref: `#/components/schemas/${op.bodyTypes.schemaName}` };
  return Object.fromEntries(op.bodyTypes.types.map((type) => [type, { schema: ref }]));
};

const pathParams = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {
      default: { description: "Error", content: { "application/json": { schema: jsonSchema(errorBody, "output") } } },
    };
    if (op.text) responses["200"] = { description: "OK", content: { "text/plain": { schema: { type: "string" } } } };
    else
      responses[String(op.status ?? 200)] = {
        description: op.status === 202 ? "Accepted" : op.status === 405 ? "Method Not Allowed" : "OK",
        ...(op.response ? { content: { "application/json": { schema: jsonSchema(op.response, "output") } } } : {}),
      };
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      parameters: [
        ...pathParams(op.path),
        ...(op.query ?? []).map((name) => ({ name, in: "query", required: false, schema: { type: "string" } })),
        ...(op.headers ?? []).map((name) => ({ name, in: "header", required: false, schema: { type: "string" } })),
      ],
      ...(op.body ? { requestBody: { required: true, content: bodyContent({ ...op, body: op.body }) } } : {}),
      responses,
      security: [{ bearer: [] }],
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "fanout",
      version: "1.1.0",
      description: "Durable parallel tool calls and subagents for webhook-driven bots.",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      // What webhooks POST and live streams send, and request bodies that several media types share.
      schemas: {
        Event: jsonSchema(eventEnvelope, "output"),
        TenantStreamEvent: jsonSchema(tenantStreamEvent, "output"),
        CursorExpired: jsonSchema(cursorExpired, "output"),
        WebhookTestEvent: jsonSchema(webhookTestEvent, "output"),
        ...Object.fromEntries(
          OPERATIONS.flatMap((op) =>
            op.bodyTypes && op.body ? [[op.bodyTypes.schemaName, jsonSchema(op.body, "input")]] : [],
          ),
        ),
      },
    },
    paths,
    webhooks: {
      event: {
        post: {
          summary:
            "An event, POSTed to webhook.url (or a request's callback_url), signed with Standard Webhooks headers",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Event" } } },
          },
          responses: {
            "200": { description: "Any 2xx acknowledges the event; 408/429/5xx are retried; 410 disables the webhook" },
          },
        },
      },
      test: {
        post: {
          summary: "A webhook.test event, POSTed to webhook.url once by POST /v1/webhook/test, signed like every event",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookTestEvent" } } },
          },
          responses: {
            "200": { description: "Any 2xx: the receiver works; the answer's status is shown to the caller" },
          },
        },
      },
    },
  };
}
