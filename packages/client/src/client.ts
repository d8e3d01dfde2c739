/**
 * The typed client: every route call is checked against the paths in
 * `./openapi.ts` by openapi-fetch. It adds what each bot would otherwise write
 * itself: retries of requests fanout could not answer (job-starting ones under
 * an Idempotency-Key, so a retry never starts a job twice), awaits that run
 * past the per-request wait cap, and event streams that reconnect. How a
 * call goes over the wire (its metadata, the retry rule) is in ./requests.ts.
 * Standard APIs only (fetch, WebSocket, WebCrypto): Node 20 and later (with the
 * `ws` package for WebSockets on Node 20), Workers, Deno, browsers.
 */
import createClient from "openapi-fetch";
import { FanoutError } from "./errors.js";
import { EventStream, type StreamOptions } from "./events.js";
import type { paths } from "./openapi.js";
import { send, startInit, type CallOptions, type Result } from "./requests.js";
import { webSocketClass } from "./websocket.js";
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
  JobRecord,
  JobSnapshot,
  ParallelAnswer,
  ParallelArgs,
  ResultsPayload,
  SpawnArgs,
  StartedPayload,
  TenantConfig,
  ToolCallsAnswer,
  ToolCallsBody,
  FlowAnswer,
  ToolsAnswer,
  Transcript,
  WebhookTestAnswer,
} from "./types.js";

export interface FanoutOptions {
  /** Where fanout runs, e.g. `https://fanout.example.workers.dev`. */
  url: string;
  apiKey: string;
  /** A fetch to use instead of the global one (a service binding's, a proxy's). */
  fetch?: (request: Request) => Promise<Response>;
  /** How many times a request fanout could not answer (503, or no answer) is tried; default 3, at least 1. */
  attempts?: number;
  /** The WebSocket class for event streams; default the runtime's own, else the `ws` package (Node 20). */
  WebSocket?: typeof WebSocket;
}

export interface AwaitOptions {
  /** How long to wait in all, across as many requests as the per-request cap needs; default 300. */
  timeoutSeconds?: number;
  agent?: string;
  signal?: AbortSignal;
}

/** The request body the wire schema describes for a POST route. */
type Body<P extends keyof paths> = paths[P] extends {
  post: { requestBody: { content: { "application/json": infer B } } };
}
  ? B
  : never;

export class Fanout {
  readonly #api: ReturnType<typeof createClient<paths>>;
  readonly #url: URL;
  readonly #attempts: number;
  readonly #WebSocket: typeof WebSocket | undefined;

  constructor(options: FanoutOptions) {
    if (!options.url) throw new TypeError("Fanout: `url` is required, e.g. https://fanout.example.workers.dev");
    if (!options.apiKey) throw new TypeError("Fanout: `apiKey` is required (a key from the API_KEYS secret)");
    const attempts = options.attempts ?? 3;
    if (!Number.isInteger(attempts) || attempts < 1) throw new TypeError("Fanout: `attempts` must be an integer >= 1");
    this.#url = new URL(options.url);
    this.#attempts = attempts;
    this.#WebSocket = options.WebSocket;
    this.#api = createClient<paths>({
      baseUrl: this.#url.origin + this.#url.pathname.replace(/\/$/, ""),
      headers: { authorization: `Bearer ${options.apiKey}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** A `parallel` call: start jobs (`tool_calls`), await, collect or cancel them (`job_ids`). */
  parallel(chatId: string, args: ParallelArgs & { wait: false }, options?: CallOptions): Promise<StartedPayload>;
  parallel(chatId: string, args: ParallelArgs, options?: CallOptions): Promise<ParallelAnswer>;
  parallel(chatId: string, args: ParallelArgs, options: CallOptions = {}): Promise<ParallelAnswer> {
    const init = startInit(chatId, options);
    // The SDKs' call shapes are wider than the wire schema's plainest one: fanout reads them all.
    const body = args as Body<"/v1/chats/{chat_id}/parallel">;
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/parallel", { ...init, body }));
  }

  /** Starts one subagent (`spawn_task` arguments; `wait` defaults to false). */
  spawn(chatId: string, args: SpawnArgs, options: CallOptions = {}): Promise<ParallelAnswer> {
    const init = startInit(chatId, options);
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/spawn", { ...init, body: args }));
  }

  /**
   * Runs one assistant message's tool calls (OpenAI `tool_calls`, Anthropic `tool_use` blocks, the
   * AI SDK's `toolCalls`, …); the answer lists them in call order, each with its `tool_call_id`.
   */
  toolCalls(
    chatId: string,
    calls: ToolCallsBody,
    options: CallOptions & { order?: "tiered" | "parallel" } = {},
  ): Promise<ToolCallsAnswer> {
    const start = startInit(chatId, options);
    // `parallel`: every call of the message at once; default the tenant's `limits.tool_calls_order`.
    const init = options.order
      ? { ...start, params: { ...start.params, query: { ...start.params.query, order: options.order } } }
      : start;
    const body = calls as Body<"/v1/chats/{chat_id}/tool-calls">;
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/tool-calls", { ...init, body }));
  }

  /**
   * Waits for jobs until they all end or `timeoutSeconds` pass, asking again whenever fanout's
   * per-request cap (`max_wait_seconds`, at most 95 s) ends a request first. Never cancels: jobs
   * still running come back with `wait_timed_out: true` (status `waiting`).
   */
  async awaitJobs(chatId: string, jobIds: string[], options: AwaitOptions = {}): Promise<ResultsPayload> {
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
    return this.parallel(chatId, { action: "collect", job_ids: jobIds }, options) as Promise<ResultsPayload>;
  }

  /** Cancels pending and running jobs (and the subagents they started). */
  cancel(chatId: string, jobIds: string[], options: CallOptions = {}): Promise<ResultsPayload> {
    return this.parallel(chatId, { action: "cancel", job_ids: jobIds }, options) as Promise<ResultsPayload>;
  }

  /** The chat's active and uncollected jobs. */
  async jobs(chatId: string, options: { signal?: AbortSignal } = {}): Promise<JobSnapshot[]> {
    const answer = await this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/jobs", { params: { path: { chat_id: chatId } }, signal: options.signal }),
    );
    return answer.jobs;
  }

  /** A job's full record (its whole result text), until it is purged. */
  job(chatId: string, jobId: string, options: { signal?: AbortSignal } = {}): Promise<JobRecord> {
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/jobs/{job_id}", {
        params: { path: { chat_id: chatId, job_id: jobId } },
        signal: options.signal,
      }),
    );
  }

  chat(chatId: string, options: { signal?: AbortSignal } = {}): Promise<ChatInfo> {
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}", { params: { path: { chat_id: chatId } }, signal: options.signal }),
    );
  }

  /**
   * A subagent's conversation (its child chat's): each model turn's text and tool calls, with usage; the
   * newest `limit`.
   */
  transcript(chatId: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<Transcript> {
    const query = options.limit ? { limit: String(options.limit) } : {};
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/transcript", {
        params: { path: { chat_id: chatId }, query },
        signal: options.signal,
      }),
    );
  }

  /** What the chat and everything under it took in the last 30 days, and by day. */
  usage(chatId: string, options: { signal?: AbortSignal } = {}): Promise<ChatUsage> {
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/usage", { params: { path: { chat_id: chatId } }, signal: options.signal }),
    );
  }

  /** A page of the tenant's top-level chats; pass `next_cursor` back as `cursor` for the next. */
  chats(options: { cursor?: string; limit?: number; signal?: AbortSignal } = {}): Promise<ChatList> {
    const query = {
      ...(options.cursor ? { cursor: options.cursor } : {}),
      ...(options.limit ? { limit: String(options.limit) } : {}),
    };
    return this.#send(options.signal, () => this.#api.GET("/v1/chats", { params: { query }, signal: options.signal }));
  }

  /** The chat's kept events that have a webhook target and are `status`, oldest first. */
  async deliveries(
    chatId: string,
    status: DeliveryStatus,
    options: { signal?: AbortSignal } = {},
  ): Promise<Delivery[]> {
    const answer = await this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/events", {
        params: { path: { chat_id: chatId }, query: { status } },
        signal: options.signal,
      }),
    );
    return answer.events;
  }

  /**
   * Sends a delivered or failed event again to its own target, or a pending one now (same id, a
   * fresh attempt schedule); answers it as now `pending`.
   */
  redeliver(chatId: string, eventId: string, options: { signal?: AbortSignal } = {}): Promise<Delivery> {
    return this.#send(options.signal, () =>
      this.#api.POST("/v1/chats/{chat_id}/events/{event_id}/redeliver", {
        params: { path: { chat_id: chatId, event_id: eventId } },
        signal: options.signal,
      }),
    );
  }

  /** Sends one signed `webhook.test` event to `webhook.url` now, and tells what the receiver answered. */
  testWebhook(options: { signal?: AbortSignal } = {}): Promise<WebhookTestAnswer> {
    return this.#send(options.signal, () => this.#api.POST("/v1/webhook/test", { signal: options.signal }));
  }

  /** The function definitions and prompts to give a model acting as `agent`. */
  tools(agent?: string, options: { signal?: AbortSignal } = {}): Promise<ToolsAnswer> {
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/tools", { params: { query: agent ? { agent } : {} }, signal: options.signal }),
    );
  }

  /** What each flow rule holds back now: running and queued calls, the rate's headroom, the busiest keys. */
  flow(options: { signal?: AbortSignal } = {}): Promise<FlowAnswer> {
    return this.#send(options.signal, () => this.#api.GET("/v1/flow", { signal: options.signal }));
  }

  /**
   * Approves a call waiting for a person (docs/api.md#approvals): it goes on and runs. The same decision
   * again is harmless.
   */
  approve(chatId: string, jobId: string, options: DecisionOptions = {}): Promise<JobSnapshot> {
    return this.#decide(chatId, jobId, "approve", options);
  }

  /**
   * Denies a call waiting for a person: it ends `error`, never made. A FanoutError `already_decided` (409)
   * means the other decision came first.
   */
  deny(chatId: string, jobId: string, options: DecisionOptions = {}): Promise<JobSnapshot> {
    return this.#decide(chatId, jobId, "deny", options);
  }

  #decide(
    chatId: string,
    jobId: string,
    decision: "approve" | "deny",
    { by, reason, signal }: DecisionOptions,
  ): Promise<JobSnapshot> {
    const body = { decision, ...(by !== undefined ? { by } : {}), ...(reason !== undefined ? { reason } : {}) };
    return this.#send(signal, () =>
      this.#api.POST("/v1/chats/{chat_id}/jobs/{job_id}/approval", {
        params: { path: { chat_id: chatId, job_id: jobId } },
        body,
        signal,
      }),
    );
  }

  /** A page of the tenant's calls waiting for a decision (`pending`, the default) or decided, newest first. */
  approvals(
    options: { status?: "pending" | "decided"; cursor?: string; limit?: number; signal?: AbortSignal } = {},
  ): Promise<ApprovalList> {
    const query = {
      ...(options.status ? { status: options.status } : {}),
      ...(options.cursor ? { cursor: options.cursor } : {}),
      ...(options.limit ? { limit: String(options.limit) } : {}),
    };
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/approvals", { params: { query }, signal: options.signal }),
    );
  }

  // The config calls cast their answer: openapi-fetch's answer types widen `permission.task`'s
  // [glob, action] tuples to string[][], while the generated types keep them.

  /** The tenant configuration, secrets shown as `"***"`. */
  config(options: { signal?: AbortSignal } = {}): Promise<TenantConfig> {
    return this.#send(options.signal, () =>
      this.#api.GET("/v1/config", { signal: options.signal }),
    ) as Promise<TenantConfig>;
  }

  /**
   * Changes only the keys `patch` names (JSON Merge Patch: `null` removes a key, arrays replace
   * whole); secrets it leaves out or sends as `"***"` are kept. Sent once, never repeated: a repeat
   * after a lost answer would keep a secret the first one generated without showing it again.
   */
  patchConfig(patch: ConfigPatch, options: { signal?: AbortSignal } = {}): Promise<ConfigAnswer> {
    const headers = { "content-type": "application/merge-patch+json" };
    const send = () => this.#api.PATCH("/v1/config", { body: patch, headers, signal: options.signal });
    return this.#send(options.signal, send, 1) as Promise<ConfigAnswer>;
  }

  /** Replaces the whole configuration: every key `doc` leaves out takes its default. */
  putConfig(doc: ConfigDocument, options: { signal?: AbortSignal } = {}): Promise<ConfigAnswer> {
    return this.#send(options.signal, () =>
      this.#api.PUT("/v1/config", { body: doc, signal: options.signal }),
    ) as Promise<ConfigAnswer>;
  }

  /**
   * Live events: one chat's (`chatId`), or every chat's of the tenant (`null`). Resolves once the
   * stream is subscribed, so every event that happens after it resolves comes (a chat that does not
   * exist yet is read from its start); with `after`, it resumes after that `seq` or `cursor`.
   * Iterate it with `for await`; it reconnects by itself and resumes after the last event it gave you.
   */
  async events(chatId: string | null, options: StreamOptions = {}): Promise<EventStream> {
    const path = chatId === null ? "/v1/events" : `/v1/chats/${encodeURIComponent(chatId)}/events`;
    const url = new URL(this.#url.pathname.replace(/\/$/, "") + path, this.#url);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    return EventStream.open(
      {
        url,
        position: chatId === null ? "cursor" : "seq",
        ticket: () => this.#ticket(chatId),
        WebSocket: await webSocketClass(this.#WebSocket),
        ...(chatId === null ? {} : { chatExists: () => this.#chatExists(chatId) }),
        attempts: this.#attempts,
      },
      options,
    );
  }

  async #chatExists(chatId: string): Promise<boolean | undefined> {
    try {
      await this.chat(chatId);
      return true;
    } catch (e) {
      return e instanceof FanoutError && e.code === "chat_not_found" ? false : undefined;
    }
  }

  /** A single-use ticket for one stream (browsers cannot send an Authorization header there). */
  async #ticket(chatId: string | null): Promise<string> {
    const answer = await this.#send(undefined, () =>
      this.#api.POST("/v1/ws-tickets", { body: chatId === null ? {} : { chat_id: chatId } }),
    );
    return answer.ticket;
  }

  /** One route call, repeated while fanout could not answer; refusals are thrown as FanoutError. */
  #send<T>(signal: AbortSignal | undefined, request: () => Promise<Result<T>>, attempts = this.#attempts): Promise<T> {
    return send(signal, request, attempts);
  }
}
