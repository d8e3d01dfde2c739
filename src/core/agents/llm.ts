/**
 * One chat-completions call to the tenant's OpenAI-compatible provider, with
 * the retry rule of docs/api.md#the-agent-loop: 429/5xx and network errors are retried up to 3
 * times (1 s, 2 s, 4 s; a Retry-After up to 30 s is honoured), then the call
 * fails with the provider's message. The official `openai` client speaks the
 * protocol; its own retries are off so this rule is the only one. It sends
 * through the egress fetch (docs/api.md#outbound-urls): `base_url` is checked again at every
 * call, and a redirect is the provider's final answer, never followed.
 */
import OpenAI from "openai";
import { egressProblem } from "../egress/policy";
import { egressFetch, egressRefusal } from "../egress/fetch";
import { redact, redactor } from "../util/redact";
import { sleep } from "../util/abort";

export interface LlmTarget {
  base_url: string;
  model: string;
  api_key?: string;
  /** Every stored secret of the tenant: a reply is redacted of them before the loop keeps or passes on any of it. */
  secrets: string[];
}

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ToolDefinition = OpenAI.Chat.Completions.ChatCompletionTool;

export interface LlmReply {
  content: string;
  tool_calls: { id: string; name: string; arguments: string }[];
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The model that answered, as the provider names it (the `chat` span's `gen_ai.response.model`). */
  model?: string;
  finish_reason?: string;
}

/** So no single request waits silently for Cloudflare's 100 s idle cutoff. */
export const LLM_CALL_TIMEOUT_MS = 90_000;
const RETRY_DELAYS_MS = [1000, 2000, 4000];
const MAX_RETRY_AFTER_MS = 30_000;

export class LlmError extends Error {}

function retryDelay(error: unknown, attempt: number): number | undefined {
  if (attempt >= RETRY_DELAYS_MS.length) return undefined;
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    if (error.status !== 429 && error.status < 500) return undefined;
    const after = Number(error.headers?.get?.("retry-after"));
    if (Number.isFinite(after) && after >= 0) return Math.min(after * 1000, MAX_RETRY_AFTER_MS);
  }
  return RETRY_DELAYS_MS[attempt];
}

const refusedText = (problem: string) => `The LLM base_url ${problem}; outbound requests there are not allowed.`;

/** A 3xx is final: following it would send the API key to a URL nobody checked. */
function redirectText(error: InstanceType<typeof OpenAI.APIError>, baseUrl: string): string {
  let to = "";
  const location = error.headers?.get?.("location");
  if (location) {
    try {
      const target = new URL(location, `${baseUrl.replace(/\/+$/, "")}/chat/completions`);
      // Query and fragment may carry tokens; the rest says where to point base_url.
      to = ` to ${target.origin}${target.pathname}`;
    } catch {
      /* an unusable Location: say only that it redirected */
    }
  }
  return `LLM provider error: HTTP ${error.status}: the provider redirected${to}, and redirects are not followed; set llm.base_url to the final URL.`;
}

/** One model request of an agent loop: the whole conversation so far, and the tools it may call. */
export interface CompletionRequest {
  model?: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
}

export async function complete(
  target: LlmTarget,
  request: CompletionRequest,
  allowPrivateEgress: boolean,
  /** `headers`: sent with the request (a `traceparent`). */
  options: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<LlmReply> {
  const stop = options.signal ?? new AbortController().signal;
  const problem = egressProblem(target.base_url, allowPrivateEgress);
  if (problem) throw new LlmError(refusedText(problem));
  const client = new OpenAI({
    baseURL: target.base_url,
    apiKey: target.api_key ?? "none",
    maxRetries: 0,
    timeout: LLM_CALL_TIMEOUT_MS,
    fetch: egressFetch(allowPrivateEgress),
  });
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await client.chat.completions.create(
        {
          model: request.model ?? target.model,
          messages: request.messages,
          ...(request.tools.length ? { tools: request.tools } : {}),
        },
        { signal: stop, ...(options.headers ? { headers: options.headers } : {}) },
      );
      const message = response.choices[0]?.message;
      // A provider that echoes its key must not put it in a result, or in a tool's arguments.
      const clean = redactor(target.secrets);
      return {
        content: clean(message?.content ?? ""),
        tool_calls: (message?.tool_calls ?? []).flatMap((c) =>
          c.type === "function"
            ? [{ id: c.id, name: clean(c.function.name), arguments: clean(c.function.arguments) }]
            : [],
        ),
        usage: {
          prompt_tokens: response.usage?.prompt_tokens ?? 0,
          completion_tokens: response.usage?.completion_tokens ?? 0,
        },
        ...(response.model ? { model: clean(response.model) } : {}),
        ...(response.choices[0]?.finish_reason ? { finish_reason: response.choices[0].finish_reason } : {}),
      };
    } catch (e) {
      // Nobody waits for an answer any more (the turn was stopped, or asked again elsewhere).
      if (stop.aborted) throw new LlmError("The model request was stopped.");
      const refused = egressRefusal(e);
      if (refused) throw new LlmError(refusedText(refused.problem));
      if (e instanceof OpenAI.APIError && e.status !== undefined && e.status >= 300 && e.status < 400)
        throw new LlmError(redirectText(e, target.base_url));
      const delay = retryDelay(e, attempt);
      if (delay === undefined)
        throw new LlmError(redact(`LLM provider error: ${(e as Error).message}`, target.secrets));
      await sleep(delay, stop); // a stop meanwhile ends the next try at once
    }
  }
}
