/**
 * The executors a chat's job uses: one HTTP attempt of a tenant tool or of the
 * built-in `http_request` (an MCP tool's is in `./mcp-client`). The chat's executor owns attempts, deadlines
 * and outcomes;
 * an executor only knows how to make and read one call.
 */
import { egressFetch, type Fetch } from "../egress/fetch";
import { attempt, interpretToolBody, type AttemptResult } from "./http-call";
import type { McpEndpoint } from "./mcp-client";
import { signatureHeaders } from "./signing";

/**
 * What the chat learns from the TenantDO about the tool it is about to call. `secrets`: every
 * stored secret of the tenant, which the call's outcome is redacted of (src/core/util/redact.ts).
 */
export type RunTarget =
  | { kind: "http_tool"; url: string; secret: string; max_response_bytes: number; secrets: string[] }
  | { kind: "http_request"; allowed_origins: string[]; max_response_bytes: number; secrets: string[] }
  | { kind: "mcp"; endpoint: McpEndpoint; tool: string; max_response_bytes: number; secrets: string[] }
  | { kind: "missing"; message: string };

export interface AttemptContext {
  job_id: string;
  chat_id: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  attempt: number;
  signal: AbortSignal;
  /** ALLOW_PRIVATE_EGRESS as the chat reads it for this attempt: the egress rules apply to every send. */
  allowPrivateEgress: boolean;
  /** What sends the request (the object's call meter); the platform's fetch when absent. */
  send?: Fetch;
  /** `traceparent` (and `tracestate`) of the job's span, when its trace is kept. */
  trace?: Record<string, string>;
}

export async function callTenantTool(
  target: Extract<RunTarget, { kind: "http_tool" }>,
  ctx: AttemptContext,
): Promise<AttemptResult> {
  const body = JSON.stringify({
    tool_name: ctx.tool_name,
    tool_args: ctx.tool_args,
    job_id: ctx.job_id,
    chat_id: ctx.chat_id,
    attempt: ctx.attempt,
  });
  const signed = await signatureHeaders(target.secret, `${ctx.job_id}.${ctx.attempt}`, body);
  return attempt(
    () =>
      egressFetch(ctx.allowPrivateEgress, ctx.send)(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": ctx.job_id, ...ctx.trace, ...signed },
        body,
        signal: ctx.signal,
      }),
    (_response, text) => interpretToolBody(text),
    target.max_response_bytes,
    target.url,
  );
}

export async function callHttpRequest(
  target: Extract<RunTarget, { kind: "http_request" }>,
  ctx: AttemptContext,
): Promise<AttemptResult> {
  const args = ctx.tool_args as { url: string; method?: string; headers?: Record<string, string>; body?: string };
  const origin = new URL(args.url).origin;
  if (!target.allowed_origins.map((o) => new URL(o).origin).includes(origin)) {
    return {
      kind: "done",
      state: "error",
      error: `Origin ${origin} is no longer in builtins.http_request.allowed_origins.`,
      error_type: "invalid_arguments",
    };
  }
  const method = (args.method ?? "GET").toUpperCase();
  return attempt(
    () =>
      egressFetch(ctx.allowPrivateEgress, ctx.send)(args.url, {
        method,
        // A trace context the model wrote into the headers is its own; fanout's goes only where there is none.
        headers: { ...ctx.trace, ...args.headers },
        body: method === "GET" || method === "HEAD" ? undefined : (args.body ?? undefined),
        signal: ctx.signal,
      }),
    (_response, text) => ({ kind: "done", state: "success", result: text }),
    target.max_response_bytes,
    args.url,
  );
}
