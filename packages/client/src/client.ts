/**
 * The typed client: every route call is checked against the paths in
 * `./openapi.ts` by openapi-fetch. It adds what each bot would otherwise write
 * itself: retries of requests fanout could not answer (job-starting ones under
 * an Idempotency-Key, so a retry never starts a job twice), awaits that run
 * past the per-request wait cap, and event streams that reconnect. How a
 * call goes over the wire (its metadata, the retry rule) is in ./requests.ts;
 * the calls themselves, by route group, in ./job-calls.ts, ./chat-calls.ts,
 * ./tenant-calls.ts and ./streams.ts, so this file is the API a bot reads.
 * Standard APIs only (fetch, WebSocket, WebCrypto): Node 20 and later (with the
 * `ws` package for WebSockets on Node 20), Workers, Deno, browsers.
 */
import * as chatCalls from "./chat-calls.js";
import type { EventStream, StreamOptions } from "./events.js";
import * as jobCalls from "./job-calls.js";
import { checkKeys } from "./known-options.js";
import {
  TAKES,
  type ApprovalsOptions,
  type AwaitOptions,
  type FanoutOptions,
  type PageOptions,
  type ReadOptions,
  type ToolCallsOptions,
} from "./method-options.js";
import type { CallOptions } from "./requests.js";

export type { AwaitOptions, FanoutOptions };
import { Routes } from "./routes.js";
import { openEvents } from "./streams.js";
import * as tenantCalls from "./tenant-calls.js";
import type {
  ApprovalList,
  ChatInfo,
  ChatList,
  ChatUsage,
  Delivery,
  DeliveryStatus,
  ConfigAnswer,
  ConfigDocument,
  ConfigPatch,
  DecisionOptions,
  BatchRecord,
  JobRecord,
  JobSnapshot,
  ParallelAnswer,
  ParallelArgs,
  RerunAnswer,
  RerunArgs,
  ResultsPayload,
  SpawnArgs,
  StartedPayload,
  TenantConfig,
  ToolCallsAnswer,
  ToolCallsBody,
  FlowAnswer,
  TelemetryAnswer,
  ToolsAnswer,
  Transcript,
  WebhookTestAnswer,
} from "./types.js";

export class Fanout {
  readonly #routes: Routes;

  constructor(options: FanoutOptions) {
    checkKeys("new Fanout", options, TAKES.constructor);
    if (!options.url) throw new TypeError("Fanout: `url` is required, e.g. https://fanout.example.workers.dev");
    if (!options.apiKey) throw new TypeError("Fanout: `apiKey` is required (a key from the API_KEYS secret)");
    const attempts = options.attempts ?? 3;
    if (!Number.isInteger(attempts) || attempts < 1) throw new TypeError("Fanout: `attempts` must be an integer >= 1");
    this.#routes = new Routes(new URL(options.url), options.apiKey, attempts, options.fetch, options.WebSocket);
  }

  /** A `parallel` call: start jobs (`tool_calls`), await, collect or cancel them (`job_ids`). */
  parallel(chatId: string, args: ParallelArgs & { wait: false }, options?: CallOptions): Promise<StartedPayload>;
  parallel(chatId: string, args: ParallelArgs, options?: CallOptions): Promise<ParallelAnswer>;
  parallel(chatId: string, args: ParallelArgs, options: CallOptions = {}): Promise<ParallelAnswer> {
    checkKeys("parallel", options, TAKES.call);
    return jobCalls.parallel(this.#routes, chatId, args, options);
  }

  /** Starts one subagent (`spawn_task` arguments; `wait` defaults to false). */
  spawn(chatId: string, args: SpawnArgs, options: CallOptions = {}): Promise<ParallelAnswer> {
    checkKeys("spawn", options, TAKES.call);
    return jobCalls.spawn(this.#routes, chatId, args, options);
  }

  /**
   * Runs one assistant message's tool calls (OpenAI `tool_calls`, Anthropic `tool_use` blocks, the
   * AI SDK's `toolCalls`, …); the answer lists them in call order, each with its `tool_call_id`.
   */
  toolCalls(chatId: string, calls: ToolCallsBody, options: ToolCallsOptions = {}): Promise<ToolCallsAnswer> {
    checkKeys("toolCalls", calls, TAKES.toolCallsBody);
    checkKeys("toolCalls", options, TAKES.toolCalls);
    return jobCalls.toolCalls(this.#routes, chatId, calls, options);
  }

  /**
   * Waits for jobs until they all end or `timeoutSeconds` pass, asking again whenever fanout's
   * per-request cap (`max_wait_seconds`, at most 95 s) ends a request first. Never cancels: jobs
   * still running come back with `wait_timed_out: true` (status `waiting`).
   */
  awaitJobs(chatId: string, jobIds: string[], options: AwaitOptions = {}): Promise<ResultsPayload> {
    checkKeys("awaitJobs", options, TAKES.awaitJobs);
    return this.#awaitJobs(chatId, jobIds, options);
  }

  async #awaitJobs(chatId: string, jobIds: string[], options: AwaitOptions): Promise<ResultsPayload> {
    const deadline = Date.now() + (options.timeoutSeconds ?? 300) * 1000;
    for (;;) {
      const timeout = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
      const call = { agent: options.agent, signal: options.signal };
      const answer = (await this.parallel(
        chatId,
        { action: "await", job_ids: jobIds, timeout },
        call,
      )) as ResultsPayload;
      if (answer.status !== "waiting" || deadline - Date.now() < 1000) return answer;
    }
  }

  /** Collects finished jobs without waiting; running ones come back as they are. */
  collect(chatId: string, jobIds: string[], options: CallOptions = {}): Promise<ResultsPayload> {
    checkKeys("collect", options, TAKES.call);
    return this.parallel(chatId, { action: "collect", job_ids: jobIds }, options) as Promise<ResultsPayload>;
  }

  /** Cancels pending and running jobs (and the subagents they started). */
  cancel(chatId: string, jobIds: string[], options: CallOptions = {}): Promise<ResultsPayload> {
    checkKeys("cancel", options, TAKES.call);
    return this.parallel(chatId, { action: "cancel", job_ids: jobIds }, options) as Promise<ResultsPayload>;
  }

  /** The chat's active and uncollected jobs. */
  jobs(chatId: string, options: ReadOptions = {}): Promise<JobSnapshot[]> {
    checkKeys("jobs", options, TAKES.read);
    return jobCalls.jobs(this.#routes, chatId, options);
  }

  /** A job's full record (its whole result text), until it is purged. */
  job(chatId: string, jobId: string, options: ReadOptions = {}): Promise<JobRecord> {
    checkKeys("job", options, TAKES.read);
    return jobCalls.job(this.#routes, chatId, jobId, options);
  }

  /**
   * A batch as one record, until its jobs are purged: its state, its jobs in call order, its usage, and the
   * `context` a `toolCalls(…, { wait: false, context })` handed with it.
   */
  batch(chatId: string, batchId: string, options: ReadOptions = {}): Promise<BatchRecord> {
    checkKeys("batch", options, TAKES.read);
    return jobCalls.batch(this.#routes, chatId, batchId, options);
  }

  chat(chatId: string, options: ReadOptions = {}): Promise<ChatInfo> {
    checkKeys("chat", options, TAKES.read);
    return chatCalls.chat(this.#routes, chatId, options);
  }

  /**
   * A subagent's conversation (its child chat's): each model turn's text and tool calls, with usage; the
   * newest `limit`.
   */
  transcript(chatId: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<Transcript> {
    checkKeys("transcript", options, TAKES.transcript);
    return chatCalls.transcript(this.#routes, chatId, options);
  }

  /** What the chat and everything under it took in the last 30 days, and by day. */
  usage(chatId: string, options: ReadOptions = {}): Promise<ChatUsage> {
    checkKeys("usage", options, TAKES.read);
    return chatCalls.usage(this.#routes, chatId, options);
  }

  /** A page of the tenant's top-level chats; pass `next_cursor` back as `cursor` for the next. */
  chats(options: PageOptions = {}): Promise<ChatList> {
    checkKeys("chats", options, TAKES.page);
    return chatCalls.chats(this.#routes, options);
  }

  /** The chat's kept events that have a webhook target and are `status`, oldest first. */
  deliveries(chatId: string, status: DeliveryStatus, options: ReadOptions = {}): Promise<Delivery[]> {
    checkKeys("deliveries", options, TAKES.read);
    return chatCalls.deliveries(this.#routes, chatId, status, options);
  }

  /**
   * Sends a delivered or failed event again to its own target, or a pending one now (same id, a
   * fresh attempt schedule); answers it as now `pending`.
   */
  redeliver(chatId: string, eventId: string, options: ReadOptions = {}): Promise<Delivery> {
    checkKeys("redeliver", options, TAKES.read);
    return chatCalls.redeliver(this.#routes, chatId, eventId, options);
  }

  /** Sends one signed `webhook.test` event to `webhook.url` now, and tells what the receiver answered. */
  testWebhook(options: ReadOptions = {}): Promise<WebhookTestAnswer> {
    checkKeys("testWebhook", options, TAKES.read);
    return tenantCalls.testWebhook(this.#routes, options);
  }

  /** The function definitions and prompts to give a model acting as `agent`. */
  tools(agent?: string, options: ReadOptions = {}): Promise<ToolsAnswer> {
    checkKeys("tools", options, TAKES.read);
    return tenantCalls.tools(this.#routes, agent, options);
  }

  /** What each flow rule holds back now: running and queued calls, the rate's headroom, the busiest keys. */
  flow(options: ReadOptions = {}): Promise<FlowAnswer> {
    checkKeys("flow", options, TAKES.read);
    return tenantCalls.flow(this.#routes, options);
  }

  /** What the tenant's span exports came to (docs/api.md#traces): spans exported and dropped, the latest failure. */
  telemetry(options: ReadOptions = {}): Promise<TelemetryAnswer> {
    checkKeys("telemetry", options, TAKES.read);
    return tenantCalls.telemetry(this.#routes, options);
  }

  /**
   * The chat's MCP endpoint (docs/mcp.md), for an MCP client or agent framework to hand fanout its
   * calls: send the API key as `Authorization: Bearer <key>`. `agent` picks the profile whose tools it sees.
   */
  mcpUrl(chatId: string, options: { agent?: string } = {}): string {
    checkKeys("mcpUrl", options, TAKES.mcpUrl);
    const base = this.#routes.url.origin + this.#routes.url.pathname.replace(/\/$/, "");
    const url = new URL(`${base}/v1/chats/${encodeURIComponent(chatId)}/mcp`);
    if (options.agent) url.searchParams.set("agent", options.agent);
    return url.toString();
  }

  /**
   * Runs the failed part of a finished batch again (docs/api.md#rerun): by default every job that did not
   * succeed and is `retryable`, plus `jobs` named (a side effect whose outcome is unknown runs only when
   * named), under today's configuration and gates. Answers the whole batch in its original order, with the
   * new `batch_id`; waits for the rerun's jobs unless `wait: false`.
   */
  rerun(chatId: string, batchId: string, args: RerunArgs = {}, options: CallOptions = {}): Promise<RerunAnswer> {
    checkKeys("rerun", args, TAKES.rerunArgs);
    checkKeys("rerun", options, TAKES.rerun);
    return jobCalls.rerun(this.#routes, chatId, batchId, args, options);
  }

  /**
   * Approves a call waiting for a person (docs/api.md#approvals): it goes on and runs. The same decision
   * again is harmless.
   */
  approve(chatId: string, jobId: string, options: DecisionOptions = {}): Promise<JobSnapshot> {
    checkKeys("approve", options, TAKES.decision);
    return jobCalls.decide(this.#routes, chatId, jobId, "approve", options);
  }

  /**
   * Denies a call waiting for a person: it ends `error`, never made. A FanoutError `already_decided` (409)
   * means the other decision came first.
   */
  deny(chatId: string, jobId: string, options: DecisionOptions = {}): Promise<JobSnapshot> {
    checkKeys("deny", options, TAKES.decision);
    return jobCalls.decide(this.#routes, chatId, jobId, "deny", options);
  }

  /** A page of the tenant's calls waiting for a decision (`pending`, the default) or decided, newest first. */
  approvals(options: ApprovalsOptions = {}): Promise<ApprovalList> {
    checkKeys("approvals", options, TAKES.approvals);
    return jobCalls.approvals(this.#routes, options);
  }

  /** The tenant configuration, secrets shown as `"***"`. */
  config(options: ReadOptions = {}): Promise<TenantConfig> {
    checkKeys("config", options, TAKES.read);
    return tenantCalls.config(this.#routes, options);
  }

  /**
   * Changes only the keys `patch` names (JSON Merge Patch: `null` removes a key, arrays replace
   * whole); secrets it leaves out or sends as `"***"` are kept. Sent once, never repeated: a repeat
   * after a lost answer would keep a secret the first one generated without showing it again.
   */
  patchConfig(patch: ConfigPatch, options: ReadOptions = {}): Promise<ConfigAnswer> {
    checkKeys("patchConfig", options, TAKES.read);
    return tenantCalls.patchConfig(this.#routes, patch, options);
  }

  /** Replaces the whole configuration: every key `doc` leaves out takes its default. */
  putConfig(doc: ConfigDocument, options: ReadOptions = {}): Promise<ConfigAnswer> {
    checkKeys("putConfig", options, TAKES.read);
    return tenantCalls.putConfig(this.#routes, doc, options);
  }

  /**
   * Live events: one chat's (`chatId`), or every chat's of the tenant (`null`). Resolves once the
   * stream is subscribed, so every event that happens after it resolves comes (a chat that does not
   * exist yet is read from its start); with `after`, it resumes after that `seq` or `cursor`.
   * Iterate it with `for await`; it reconnects by itself and resumes after the last event it gave you.
   */
  events(chatId: string | null, options: StreamOptions = {}): Promise<EventStream> {
    checkKeys("events", options, TAKES.events);
    return openEvents(this.#routes, chatId, options, (id) => this.chat(id));
  }
}
