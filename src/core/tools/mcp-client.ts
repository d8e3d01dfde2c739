/**
 * Talking to an MCP server over Streamable HTTP with the official SDK client.
 * Each use opens its own client (initialize, the request, close): a call runs
 * in an invocation of its own (docs/architecture.md#platform-rules), and a client's connections cannot
 * outlive the invocation that opened them. Output schemas are checked with the
 * SDK's cfworker validator, because AJV compiles code, which Workers refuse.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, type Progress as ProgressParams } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { EgressRefused, egressFetch, egressRefusal, type Fetch } from "../egress/fetch";
import type { AttemptResult } from "./http-call";
import { callOutcome, type ListedTool, type McpTool } from "./mcp";
import { keptTools, MCP_LIST_BOUNDS, type ListingCut } from "./mcp-list-bounds";

/** A server with its headers decrypted: what the TenantDO hands out for one use. */
export interface McpEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export const MCP_LIST_TIMEOUT_MS = 10_000;

const CLIENT_INFO = { name: "fanout", version: "1.1.0" };

/**
 * The transport's fetch: the egress fetch, to the server's own URL only. The SDK follows a
 * same-origin redirect of its SSE stream by itself, with a second request to the redirect's
 * target; fanout follows no redirect (docs/api.md#outbound-urls), so that request is refused here and the
 * redirect stays the answer.
 */
export function serverFetch(url: string, allowPrivateEgress: boolean, send?: Fetch): Fetch {
  const guarded = egressFetch(allowPrivateEgress, send);
  const own = new URL(url).href;
  return async (input, init) => {
    const target = input instanceof Request ? input.url : String(input);
    if (new URL(target).href !== own)
      throw new EgressRefused("is the target of a redirect, and redirects are not followed");
    return guarded(input, init);
  };
}

/**
 * `send` with every answer's body counted against `limit` bytes in all: the body that crosses it
 * fails as it is read, and `exceeded()` says why.
 */
function meteredFetch(send: Fetch, limit: number): { fetch: Fetch; exceeded: () => boolean } {
  let read = 0;
  const fetch: Fetch = async (input, init) => {
    const response = await send(input, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength;
          if (read > limit) controller.error(new Error(`the answers exceeded ${limit} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, response);
  };
  return { fetch, exceeded: () => read > limit };
}

async function connected(endpoint: McpEndpoint, signal: AbortSignal, timeout: number, fetch: Fetch): Promise<Client> {
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    // `redirect: "manual"` here too: with it the SDK's POSTs leave a redirect alone rather than try to follow it.
    requestInit: { headers: endpoint.headers, redirect: "manual" },
    fetch,
  });
  await client.connect(transport, { signal, timeout });
  return client;
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The tools the server lists, following `nextCursor` within MCP_LIST_BOUNDS, and the one line
 * that says what was left out. Throws when the server cannot be listed at all. Pages are read one
 * at a time: with the SDK's event stream, at most 2 connections are open.
 */
export async function listMcpTools(
  endpoint: McpEndpoint,
  allowPrivateEgress: boolean,
): Promise<{ tools: McpTool[]; report?: string }> {
  const signal = AbortSignal.timeout(MCP_LIST_TIMEOUT_MS);
  const metered = meteredFetch(serverFetch(endpoint.url, allowPrivateEgress), MCP_LIST_BOUNDS.bytes);
  const client = await connected(endpoint, signal, MCP_LIST_TIMEOUT_MS, metered.fetch);
  try {
    const listed: ListedTool[] = [];
    let cut: ListingCut;
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page === MCP_LIST_BOUNDS.pages) {
        cut = { pages: page };
        break;
      }
      let answer: Awaited<ReturnType<typeof client.listTools>>;
      try {
        answer = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: MCP_LIST_TIMEOUT_MS });
      } catch (e) {
        // Past the byte bound the pages read so far are the listing; any other failure is the server's.
        if (!metered.exceeded()) throw e;
        cut = { bytes: MCP_LIST_BOUNDS.bytes };
        break;
      }
      listed.push(...answer.tools);
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return keptTools(endpoint.name, listed, cut);
  } finally {
    await client.close().catch(() => {});
  }
}

/** Why a list failed, in words a person can act on. */
export const listFailure = (server: string, e: unknown) =>
  `MCP server '${server}' could not be listed: ${e instanceof StreamableHTTPError ? `HTTP ${e.code}: ` : ""}${reason(e)}`;

/**
 * One `tools/call`. Nothing reached the tool while the client was still connecting, so a failure
 * there may be retried whatever the tool does; after the call left, a network failure is ambiguous.
 * An abort (cancel, deadline) is thrown: the caller stops without an outcome. `onProgress` makes
 * the SDK send a progress token and hands over each `notifications/progress` for the call.
 */
export async function callMcpTool(
  endpoint: McpEndpoint,
  tool: string,
  args: Record<string, unknown>,
  call: {
    signal: AbortSignal;
    remainingMs: number;
    allowPrivateEgress: boolean;
    onProgress?: (progress: ProgressParams) => void;
    /** `traceparent` (and `tracestate`) of the job's span: sent as headers and in `params._meta`. */
    trace?: Record<string, string>;
  },
): Promise<AttemptResult> {
  const { signal, remainingMs, onProgress, trace } = call;
  // The caller's signal ends the call at the deadline; the SDK's own timer must not fire first.
  const timeout = remainingMs + 1_000;
  let client: Client;
  try {
    const traced = trace ? { ...endpoint, headers: { ...endpoint.headers, ...trace } } : endpoint;
    client = await connected(traced, signal, timeout, serverFetch(endpoint.url, call.allowPrivateEgress));
  } catch (e) {
    if (signal.aborted) throw e;
    return failure(endpoint.name, e, "unsent");
  }
  try {
    // MCP carries W3C trace context in `_meta` too (the 2026-07-28 revision), so it crosses a proxy that drops headers.
    const meta = trace ? { _meta: { ...trace } } : {};
    const result = await client.callTool({ name: tool, arguments: args, ...meta }, undefined, {
      signal,
      timeout,
      ...(onProgress ? { onprogress: onProgress } : {}),
    });
    return { kind: "done", ...callOutcome(result as Parameters<typeof callOutcome>[0]) };
  } catch (e) {
    if (signal.aborted) throw e;
    return failure(endpoint.name, e, "network");
  } finally {
    await client.close().catch(() => {});
  }
}

function failure(server: string, e: unknown, otherwise: "unsent" | "network"): AttemptResult {
  // Nothing was sent, and sending again cannot help: final, never retried.
  const refused = egressRefusal(e);
  if (refused)
    return {
      kind: "done",
      state: "error",
      error: `MCP server '${server}': its URL ${refused.problem}; outbound calls there are not allowed.`,
      error_type: "invalid_arguments",
    };
  if (e instanceof StreamableHTTPError && e.code !== undefined) {
    return {
      kind: "failed",
      failure: { kind: "status", status: e.code },
      error: `MCP server '${server}' answered HTTP ${e.code}: ${reason(e).slice(0, 500)}`,
    };
  }
  // A JSON-RPC error is the server's answer (unknown tool, invalid arguments): final.
  if (e instanceof McpError)
    return { kind: "done", state: "error", error: `MCP server '${server}': ${reason(e)}`, error_type: "mcp_error" };
  const error =
    otherwise === "unsent"
      ? `MCP server '${server}' could not be reached: ${reason(e)}`
      : `Network error: ${reason(e)}`;
  return { kind: "failed", failure: { kind: otherwise }, error };
}
