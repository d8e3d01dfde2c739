/**
 * Tools as functions: each is served at its own path of a local server and
 * configured in fanout as a tenant HTTP tool, so a call takes the production
 * path (a signed POST, retries by `read_only`, the job's deadline) and the
 * function runs in the test's own process.
 */
import { verifyWebhook } from "@fanout/client";
import { headersOf, json, listen, readBody, signingSecret, type LocalServer } from "./http.js";

/** What a tool's `run` is told besides its arguments. */
export interface ToolContext {
  jobId: string;
  chatId: string;
  /** Counts from 1: a read-only tool may be called again after a 408, 429 or 5xx. */
  attempt: number;
  /** Aborted when fanout gives up on the call (its deadline, a cancel). */
  signal: AbortSignal;
  /**
   * The call's W3C trace context, when its batch's trace is kept (docs/api.md#traces): a tool
   * instrumented with OpenTelemetry continues the trace from it.
   */
  traceparent?: string;
  tracestate?: string;
}

export interface TestTool<Args = Record<string, unknown>> {
  description?: string;
  /** JSON Schema of the arguments; fanout checks calls against it before they start. */
  parameters?: Record<string, unknown>;
  /** Safe to run twice: retried after ambiguous failures, run beside other calls by /tool-calls. */
  read_only?: boolean;
  timeout_seconds?: number;
  /**
   * Runs the call. A string is the result as it is; anything else, as compact JSON. A thrown
   * error ends the job `error` with its message; a thrown {@link ToolHttpError} answers its status instead.
   */
  run(args: Args, context: ToolContext): unknown;
}

/** Thrown from a tool's `run`: fanout gets this HTTP status (a 503 to see a read-only tool retried, say). */
export class ToolHttpError extends Error {
  constructor(
    readonly status: number,
    message = `HTTP ${status}`,
  ) {
    super(message);
    this.name = "ToolHttpError";
  }
}

/** One call a tool received, in arrival order. */
export interface ToolCallRecord {
  tool: string;
  args: Record<string, unknown>;
  jobId: string;
  chatId: string;
  attempt: number;
  /** The `traceparent` the call came with, when its batch's trace is kept. */
  traceparent?: string;
}

export interface ToolServer extends LocalServer {
  /** The tenant tools to configure, each with the secret it verifies. */
  config: Record<string, unknown>[];
  /** Every call in arrival order, retries included. */
  calls: ToolCallRecord[];
  /** Requests refused for a missing or wrong signature: none, unless something other than fanout called. */
  unsigned: number;
  /** Forgets the calls and refusals so far, for tests that share one fanout. */
  reset(): void;
}

type ToolBody = {
  tool_name: string;
  tool_args: Record<string, unknown>;
  job_id: string;
  chat_id: string;
  attempt: number;
};

export async function startTools(tools: Record<string, TestTool<never>>): Promise<ToolServer> {
  const secrets = new Map(Object.keys(tools).map((name) => [name, signingSecret()]));
  const calls: ToolCallRecord[] = [];
  let unsigned = 0;
  const server = await listen(async (req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.replace(/^\/tools\//, ""));
    const tool = tools[name];
    const body = await readBody(req);
    if (!tool || req.method !== "POST")
      return json(res, 404, { error: `No tool '${name}' in this test's startFanout({ tools }).` });
    if (!(await verifyWebhook(secrets.get(name)!, headersOf(req), body))) {
      unsigned++;
      return json(res, 401, { error: "bad signature" });
    }
    const call = JSON.parse(body) as ToolBody;
    const trace = {
      ...(typeof req.headers.traceparent === "string" ? { traceparent: req.headers.traceparent } : {}),
      ...(typeof req.headers.tracestate === "string" ? { tracestate: req.headers.tracestate } : {}),
    };
    calls.push({
      tool: name,
      args: call.tool_args,
      jobId: call.job_id,
      chatId: call.chat_id,
      attempt: call.attempt,
      ...(trace.traceparent ? { traceparent: trace.traceparent } : {}),
    });
    const aborted = new AbortController();
    res.on("close", () => res.writableFinished || aborted.abort(new Error("fanout closed the call")));
    try {
      const value = await (tool.run as TestTool["run"])(call.tool_args, {
        jobId: call.job_id,
        chatId: call.chat_id,
        attempt: call.attempt,
        signal: aborted.signal,
        ...trace,
      });
      json(res, 200, { result: value === undefined ? "" : value });
    } catch (error) {
      if (error instanceof ToolHttpError) return json(res, error.status, { error: error.message });
      json(res, 200, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  const config = Object.entries(tools).map(([name, tool]) => ({
    name,
    url: `${server.url}/tools/${encodeURIComponent(name)}`,
    secret: secrets.get(name)!,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
    ...(tool.read_only !== undefined ? { read_only: tool.read_only } : {}),
    ...(tool.timeout_seconds !== undefined ? { timeout_seconds: tool.timeout_seconds } : {}),
  }));
  return {
    ...server,
    config,
    calls,
    get unsigned() {
      return unsigned;
    },
    reset() {
      calls.length = 0;
      unsigned = 0;
    },
  };
}
