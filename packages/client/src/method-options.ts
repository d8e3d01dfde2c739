/**
 * The options each client method takes, and what it takes by argument for `checkKeys`
 * (./known-options.ts). The lists are held to the options types by the compiler.
 */
import type { StreamOptions } from "./events.js";
import { optionNames, type Takes } from "./known-options.js";
import type { CallOptions } from "./requests.js";
import type { DecisionOptions, RerunArgs, ToolCallsBody } from "./types.js";

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

/** The options of a call that only reads. */
export interface ReadOptions {
  signal?: AbortSignal;
}
export type ToolCallsOptions = CallOptions & { order?: "tiered" | "parallel" };
export type PageOptions = { cursor?: string; limit?: number; signal?: AbortSignal };
export type ApprovalsOptions = PageOptions & { status?: "pending" | "decided" };

const CALL = optionNames<CallOptions>({
  agent: true,
  callbackUrl: true,
  notify: true,
  metadata: true,
  budget: true,
  idempotencyKey: true,
  traceparent: true,
  tracestate: true,
  signal: true,
});
const options = (known: readonly string[], other?: Takes["other"]): Takes => ({
  what: "options",
  known,
  ...(other ? { other } : {}),
});
/** The keys of `toolCalls`' body beside the calls (a bare list of calls has none). */
const TURN = optionNames<Extract<ToolCallsBody, { tool_calls: unknown }>>({
  tool_calls: true,
  timeout: true,
  wait: true,
  context: true,
});
const TOOL_CALLS_OPTIONS = [...CALL, ...optionNames<Pick<ToolCallsOptions, "order">>({ order: true })];

const RERUN = optionNames<RerunArgs>({ jobs: true, tool_args: true, wait: true });

export const TAKES = {
  constructor: options(
    optionNames<FanoutOptions>({ url: true, apiKey: true, fetch: true, attempts: true, WebSocket: true }),
  ),
  call: options(CALL),
  toolCalls: options(TOOL_CALLS_OPTIONS, { what: "the calls' body (the second argument)", known: TURN }),
  toolCallsBody: {
    what: "the calls' body",
    known: TURN,
    other: { what: "the options (the third argument): toolCalls(chat, calls, { … })", known: TOOL_CALLS_OPTIONS },
  },
  awaitJobs: options(optionNames<AwaitOptions>({ timeoutSeconds: true, agent: true, signal: true })),
  read: options(optionNames<ReadOptions>({ signal: true })),
  page: options(optionNames<PageOptions>({ cursor: true, limit: true, signal: true })),
  transcript: options(optionNames<{ limit?: number; signal?: AbortSignal }>({ limit: true, signal: true })),
  approvals: options(optionNames<ApprovalsOptions>({ status: true, cursor: true, limit: true, signal: true })),
  decision: options(optionNames<DecisionOptions>({ by: true, reason: true, signal: true })),
  mcpUrl: options(optionNames<{ agent?: string }>({ agent: true })),
  events: options(optionNames<StreamOptions>({ after: true, signal: true })),
  rerun: options(CALL, { what: "the rerun's arguments (the third argument)", known: RERUN }),
  rerunArgs: {
    what: "the rerun's arguments",
    known: RERUN,
    other: { what: "the options (the fourth argument)", known: CALL },
  },
} satisfies Record<string, Takes>;
