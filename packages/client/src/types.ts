/**
 * Names for the wire types the client uses, all taken from `./openapi.ts`,
 * which openapi-typescript generates from the worker's /openapi.json: nothing
 * here restates a shape.
 */
import type { components, paths } from "./openapi.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody: infer R } ? Json<R> : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: infer R } } ? Json<R> : never;

/** The `tool_args` of a `parallel` call, as a model writes them. */
export type ParallelArgs = Body<"/v1/chats/{chat_id}/parallel", "post">;
/** What `parallel` answers: results, or the started payload with `wait: false`. */
export type ParallelAnswer = Ok<"/v1/chats/{chat_id}/parallel", "post">;
export type ResultsPayload = Exclude<ParallelAnswer, { status: "started" }>;
export type StartedPayload = Extract<ParallelAnswer, { status: "started" }>;
export type JobSnapshot = ResultsPayload["jobs"][number];
export type JobRecord = Ok<"/v1/chats/{chat_id}/jobs/{job_id}", "get">;

/** `spawn_task` arguments plus `agent` (the subagent type). */
export type SpawnArgs = Body<"/v1/chats/{chat_id}/spawn", "post">;
export type ToolCallsBody = Body<"/v1/chats/{chat_id}/tool-calls", "post">;
export type ToolCallsAnswer = Ok<"/v1/chats/{chat_id}/tool-calls", "post">;
export type ToolsAnswer = Ok<"/v1/tools", "get">;
export type ChatInfo = Ok<"/v1/chats/{chat_id}", "get">;
/** A page of the tenant's top-level chats. */
export type ChatList = Ok<"/v1/chats", "get">;

/** One kept event's webhook delivery, as `deliveries()` lists it and `redeliver()` answers it. */
export type Delivery = Ok<"/v1/chats/{chat_id}/events", "get">["events"][number];
export type DeliveryStatus = Delivery["status"];
/** What `testWebhook()` found: the receiver's status (null: no answer), what is wrong, how long it took. */
export type WebhookTestAnswer = Ok<"/v1/webhook/test", "post">;

/** One event, as webhooks deliver it and the chat stream sends it. */
export type FanoutEvent = components["schemas"]["Event"];
export type EventType = FanoutEvent["type"];
/** What `testWebhook()` sends: signed like every event, with only the tenant in `data`. */
export type WebhookTestEvent = components["schemas"]["WebhookTestEvent"];
/** What a webhook receiver gets: an event, or a test event. */
export type WebhookEvent = FanoutEvent | WebhookTestEvent;
/** A tenant-stream message: the event plus its `cursor`. */
export type TenantStreamEvent = components["schemas"]["TenantStreamEvent"];
/** First on a resumed stream when messages it missed are gone: reload state from the REST routes. */
export type CursorExpired = components["schemas"]["CursorExpired"];
/** Every non-2xx answer: `{"status":"error","error":{"code","message",…details}}`. */
export type ErrorBody = Json<paths["/v1/config"]["get"]["responses"]["default"]>;
