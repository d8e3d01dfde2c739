/**
 * The typed client: every route call is checked against the paths in
 * `./openapi.ts` by openapi-fetch. It adds what each bot would otherwise write
 * itself: retries of requests fanout could not answer (job-starting ones under
 * an Idempotency-Key, so a retry never starts a job twice), awaits that run
 * past the per-request wait cap, and event streams that reconnect.
 * Standard APIs only (fetch, WebSocket, WebCrypto): Node 22, Workers, browsers.
 */
import createClient from "openapi-fetch";
import { FanoutError } from "./errors.js";
import { EventStream, type StreamOptions } from "./events.js";
import type { paths } from "./openapi.js";
import type {
  ChatInfo,
  ChatList,
  Delivery,
  DeliveryStatus,
  JobRecord,
  JobSnapshot,
  ParallelAnswer,
  ParallelArgs,
  ResultsPayload,
  SpawnArgs,
  StartedPayload,
  ToolCallsAnswer,
  ToolCallsBody,
  ToolsAnswer,
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
  /** The WebSocket class for event streams; default the global one. */
  WebSocket?: typeof WebSocket;
}

/** Request metadata (query parameters and headers, never model-written arguments). */
export interface CallOptions {
  /** The calling agent's profile; default `default`. */
  agent?: string;
  /** Where this batch's events go instead of the tenant webhook. */
  callbackUrl?: string;
  notify?: { telegram_chat_id: string | number };
  /** Makes a job-starting request safe to repeat; one is made up per call when omitted. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface AwaitOptions {
  /** How long to wait in all, across as many requests as the per-request cap needs; default 300. */
  timeoutSeconds?: number;
  agent?: string;
  signal?: AbortSignal;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

const BACKOFF_MS = 250;

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
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/parallel", { ...init, body: args }));
  }

  /** Starts one subagent (`spawn_task` arguments; `wait` defaults to false). */
  spawn(chatId: string, args: SpawnArgs, options: CallOptions = {}): Promise<ParallelAnswer> {
    const init = startInit(chatId, options);
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/spawn", { ...init, body: args }));
  }

  /** Runs one assistant message's OpenAI `tool_calls`; the answer lists them in call order. */
  toolCalls(chatId: string, body: ToolCallsBody, options: CallOptions = {}): Promise<ToolCallsAnswer> {
    const init = startInit(chatId, options);
    return this.#send(options.signal, () => this.#api.POST("/v1/chats/{chat_id}/tool-calls", { ...init, body: body }));
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
      const answer = (await this.parallel(chatId, { action: "await", job_ids: jobIds, timeout }, call)) as ResultsPayload;
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
      this.#api.GET("/v1/chats/{chat_id}/jobs/{job_id}", { params: { path: { chat_id: chatId, job_id: jobId } }, signal: options.signal }),
    );
  }

  chat(chatId: string, options: { signal?: AbortSignal } = {}): Promise<ChatInfo> {
    return this.#send(options.signal, () => this.#api.GET("/v1/chats/{chat_id}", { params: { path: { chat_id: chatId } }, signal: options.signal }));
  }

  /** A page of the tenant's top-level chats; pass `next_cursor` back as `cursor` for the next. */
  chats(options: { cursor?: string; limit?: number; signal?: AbortSignal } = {}): Promise<ChatList> {
    const query = { ...(options.cursor ? { cursor: options.cursor } : {}), ...(options.limit ? { limit: String(options.limit) } : {}) };
    return this.#send(options.signal, () => this.#api.GET("/v1/chats", { params: { query }, signal: options.signal }));
  }

  /** The chat's kept events that have a webhook target and are `status`, oldest first. */
  async deliveries(chatId: string, status: DeliveryStatus, options: { signal?: AbortSignal } = {}): Promise<Delivery[]> {
    const answer = await this.#send(options.signal, () =>
      this.#api.GET("/v1/chats/{chat_id}/events", { params: { path: { chat_id: chatId }, query: { status } }, signal: options.signal }),
    );
    return answer.events;
  }

  /**
   * Sends a delivered or failed event again to its own target (same id, a fresh attempt schedule);
   * answers it as now `pending`. A FanoutError `delivery_pending` (409) means it is still under way.
   */
  redeliver(chatId: string, eventId: string, options: { signal?: AbortSignal } = {}): Promise<Delivery> {
    return this.#send(options.signal, () =>
      this.#api.POST("/v1/chats/{chat_id}/events/{event_id}/redeliver", { params: { path: { chat_id: chatId, event_id: eventId } }, signal: options.signal }),
    );
  }

  /** Sends one signed `webhook.test` event to `webhook.url` now, and tells what the receiver answered. */
  testWebhook(options: { signal?: AbortSignal } = {}): Promise<WebhookTestAnswer> {
    return this.#send(options.signal, () => this.#api.POST("/v1/webhook/test", { signal: options.signal }));
  }

  /** The function definitions and prompts to give a model acting as `agent`. */
  tools(agent?: string, options: { signal?: AbortSignal } = {}): Promise<ToolsAnswer> {
    return this.#send(options.signal, () => this.#api.GET("/v1/tools", { params: { query: agent ? { agent } : {} }, signal: options.signal }));
  }

  /**
   * Live events: one chat's (`chatId`), or every chat's of the tenant (`null`). Iterate it with
   * `for await`; it reconnects by itself and resumes after the last event it gave you.
   */
  events(chatId: string | null, options: StreamOptions = {}): EventStream {
    const path = chatId === null ? "/v1/events" : `/v1/chats/${encodeURIComponent(chatId)}/events`;
    const base = new URL(this.#url.pathname.replace(/\/$/, "") + path, this.#url);
    base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
    const WebSocketClass = this.#WebSocket ?? globalThis.WebSocket;
    if (!WebSocketClass) throw new TypeError("Fanout: no WebSocket here; pass one as `WebSocket` in the options");
    return new EventStream(base, chatId === null ? "cursor" : "seq", () => this.#ticket(chatId), WebSocketClass, options);
  }

  /** A single-use ticket for one stream (browsers cannot send an Authorization header there). */
  async #ticket(chatId: string | null): Promise<string> {
    const answer = await this.#send(undefined, () => this.#api.POST("/v1/ws-tickets", { body: chatId === null ? {} : { chat_id: chatId } }));
    return answer.ticket;
  }

  /** One route call, repeated while fanout could not answer; refusals are thrown as FanoutError. */
  async #send<T>(signal: AbortSignal | undefined, request: () => Promise<Result<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let failure: FanoutError;
      try {
        const { data, error, response } = await request();
        if (response.ok) return data as T;
        failure = await FanoutError.from(response, error);
      } catch (e) {
        if (signal?.aborted || (e as Error).name === "AbortError") throw e;
        failure = new FanoutError(0, "network_error", `fanout did not answer: ${(e as Error).message}`);
      }
      if (!failure.retryable || attempt >= this.#attempts) throw failure;
      await sleep(failure.retryAfterMs ?? BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2), signal);
    }
  }
}

/**
 * What every job-starting call sends besides its body: the chat, the request metadata, and an
 * Idempotency-Key made once per call, so each retry of it repeats the same request.
 */
function startInit(chatId: string, options: CallOptions) {
  return {
    params: { path: { chat_id: chatId }, query: query(options) },
    headers: { "idempotency-key": options.idempotencyKey ?? crypto.randomUUID() },
    signal: options.signal,
  };
}

function query(options: CallOptions) {
  return {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
    ...(options.notify ? { notify: JSON.stringify(options.notify) } : {}),
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
