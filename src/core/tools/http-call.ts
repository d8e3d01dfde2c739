/**
 * Performing one HTTP attempt for a job and reading its answer, shared by
 * tenant HTTP tools and the built-in `http_request`. Requests go through the
 * egress fetch, so redirects are never followed (a redirect could leave the
 * origin the tenant configured) and a URL the egress rules refuse is never
 * called; bodies are read only up to `maxBytes`.
 */
import { networkErrorText } from "../http/network-error";
import { egressRefusal } from "../egress/fetch";
import type { ContentPart } from "./mcp-content";
import type { AttemptFailure } from "./retry";
import { parseRetryAfter } from "./retry";

/** `content`: an MCP result's parts, which the job keeps beside the text a model reads. */
/**
 * The `error_type`s a tool's own answer ends a call with (docs/api.md#why-a-job-failed); the rest of
 * the list is decided above the tools (a status, a network error, the chat's gates).
 */
export type ToolErrorType = "tool_error" | "invalid_arguments" | "mcp_error";

export type AttemptResult =
  | { kind: "done"; state: "success"; result: string; content?: ContentPart[] }
  | { kind: "done"; state: "error"; error: string; error_type: ToolErrorType; content?: ContentPart[] }
  | { kind: "failed"; failure: AttemptFailure; error: string };

export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  // A declared length within the cap frames the body as sent (a compressed one may inflate past
  // it): the platform may read it whole, in one step, and it is still cut to the cap.
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  const encoding = response.headers.get("content-encoding");
  if (Number.isInteger(declared) && declared >= 0 && declared <= maxBytes && (!encoding || encoding === "identity")) {
    const body = await response.arrayBuffer();
    return new TextDecoder().decode(new Uint8Array(body, 0, Math.min(body.byteLength, maxBytes)));
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < maxBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.slice(0, maxBytes - size));
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(bytes);
}

export const toolUrlRefused = (problem: string) => `The tool URL ${problem}; outbound calls there are not allowed.`;

export const httpError = (status: number, text: string) => `HTTP ${status}: ${text.slice(0, 500)}`;

/** A non-2xx answer: retryable or final is the caller's decision. */
export function statusFailure(response: Response, text: string): AttemptResult {
  return {
    kind: "failed",
    failure: {
      kind: "status",
      status: response.status,
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    },
    error: httpError(response.status, text),
  };
}

/** Tenant tool answers: `{"result": …}`, `{"error": "…"}`, or any other body as text. */
export function interpretToolBody(text: string): AttemptResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "done", state: "success", result: text };
  }
  if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
    const body = parsed as Record<string, unknown>;
    if ("result" in body) {
      const r = body.result;
      return { kind: "done", state: "success", result: typeof r === "string" ? r : JSON.stringify(r) };
    }
    if (typeof body.error === "string")
      return { kind: "done", state: "error", error: body.error, error_type: "tool_error" };
  }
  return { kind: "done", state: "success", result: text };
}

export async function attempt(
  request: () => Promise<Response>,
  read: (response: Response, text: string) => AttemptResult,
  maxBytes: number,
  url: string,
): Promise<AttemptResult> {
  let response: Response;
  try {
    response = await request();
  } catch (e) {
    if ((e as Error).name === "AbortError" || (e as Error).name === "TimeoutError") throw e;
    // Nothing was sent, and sending again cannot help: final, never retried.
    const refused = egressRefusal(e);
    if (refused)
      return { kind: "done", state: "error", error: toolUrlRefused(refused.problem), error_type: "invalid_arguments" };
    return { kind: "failed", failure: { kind: "network" }, error: networkErrorText(e, url) };
  }
  let text: string;
  try {
    text = await readCapped(response, maxBytes);
  } catch (e) {
    if ((e as Error).name === "AbortError" || (e as Error).name === "TimeoutError") throw e;
    return {
      kind: "failed",
      failure: { kind: "network" },
      error: `Network error while reading the answer: ${(e as Error).message}`,
    };
  }
  if (response.status >= 200 && response.status < 300) return read(response, text);
  return statusFailure(response, text);
}
