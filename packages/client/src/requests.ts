/**
 * How a route call of the client goes over the wire: the request metadata a
 * job-starting call sends (query parameters, and an Idempotency-Key made once
 * per call, so each retry of it repeats the same request), and the rule for
 * repeating a request fanout could not answer (503, or no answer at all),
 * backing off in between. Every call of `Fanout` (./client.ts, by route group in ./job-calls.ts and
 * its siblings) is built on these.
 */
import { FanoutError } from "./errors.js";

/** Request metadata (query parameters and headers, never model-written arguments). */
export interface CallOptions {
  /** The calling agent's profile; default `default`. */
  agent?: string;
  /** Where this batch's events go instead of the tenant webhook. */
  callbackUrl?: string;
  notify?: { telegram_chat_id: string | number };
  /**
   * Your own ids for this batch (at most 2,048 bytes as JSON), echoed in every event and record of
   * the batch and of what its subagents start, so a webhook handler can route the answer without a
   * store of its own. Never shown to a model.
   */
  metadata?: Record<string, unknown>;
  /**
   * What this batch and everything it starts may spend (docs/api.md#budgets): lowers the
   * configured `limits.budget` field by field, never raises it.
   */
  budget?: { llm_tokens?: number; llm_calls?: number; tool_calls?: number; subagents?: number; cost_usd?: number };
  /** Makes a job-starting request safe to repeat; one is made up per call when omitted. */
  idempotencyKey?: string;
  /**
   * W3C trace context of your own span (docs/api.md#traces): the batch's spans become its children,
   * and its tools, MCP servers and models get the trace passed on.
   */
  traceparent?: string;
  tracestate?: string;
  signal?: AbortSignal;
}

/** What openapi-fetch answers for one route call. */
export type Result<T> = { data?: T; error?: unknown; response: Response };

const BACKOFF_MS = 250;

/** One route call, repeated while fanout could not answer; refusals are thrown as FanoutError. */
export async function send<T>(
  signal: AbortSignal | undefined,
  request: () => Promise<Result<T>>,
  attempts: number,
): Promise<T> {
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
    if (!failure.retryable || attempt >= attempts) throw failure;
    await sleep(failure.retryAfterMs ?? BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2), signal);
  }
}

/**
 * What every job-starting call sends besides its body: the chat, the request metadata, and an
 * Idempotency-Key made once per call, so each retry of it repeats the same request.
 */
export function startInit(chatId: string, options: CallOptions) {
  return {
    params: { path: { chat_id: chatId }, query: query(options) },
    headers: {
      "idempotency-key": options.idempotencyKey ?? crypto.randomUUID(),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      ...(options.tracestate ? { tracestate: options.tracestate } : {}),
    },
    signal: options.signal,
  };
}

function query(options: CallOptions) {
  return {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
    ...(options.notify ? { notify: JSON.stringify(options.notify) } : {}),
    ...(options.metadata ? { metadata: JSON.stringify(options.metadata) } : {}),
    ...(options.budget ? { budget: JSON.stringify(options.budget) } : {}),
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
