/**
 * One normalised tool call turned into the job it will become (the item checks of
 * docs/api.md#validation-order-and-errors, in order: nesting, disallowed, unknown tool, schema, profile,
 * permission). Shared by `parallel`, `/tool-calls` and agent loops; the first
 * answers a refusal with 400/403, the others turn it into an error entry.
 */
import { mayStart } from "../agents/permission";
import { profile, requireProfile } from "../agents/profiles";
import { startableTypes } from "../agents/tool-definitions";
import type { TenantConfig } from "../config/schema";
import type { PatternMeter } from "../json-schema/linear-patterns";
import { ApiError, badRequest } from "../http/errors";
import type { ToolCall } from "../calls/normalize-call";
import { overlongName, quoteName } from "../calls/names";
import { isSubordinateTool, parseSubordinate, type SubordinateRequest } from "../subagents/args";
import { PARALLEL_NAMES, SEQUENTIAL_ONLY_TOOLS } from "../tools/builtins";
import { defaultJobTimeout, schemaProblems, toolsForAgent, type CatalogTool } from "../tools/catalog";
import { canonicalToolName, splitMcpName, type McpListings } from "../tools/mcp";
import { MAX_CALL_ARGS_BYTES, utf8Length } from "../storage/row-bounds";

interface SpecBase {
  index: number;
  /** Set by the chat before admission (a subordinate's id names its tree slot). */
  job_id?: string;
  tool_name: string;
  /** The call's own id (docs/api.md#arguments-and-call-shapes), kept on its job. */
  tool_call_id?: string;
  /** JSON text: the arguments are null-prototype objects, which RPC cannot clone. */
  tool_args: string;
  read_only: boolean;
  timeout_seconds: number;
  /** Calls of a `parallel` inside an agent loop start at once, never held back by tiering. */
  concurrent?: boolean;
  /** Calls of one `parallel` inside an agent loop are admitted together or not at all. */
  group?: number;
}
export type ToolJobSpec = SpecBase & { kind: "tool"; mcp?: true };
export type SubordinateJobSpec = SpecBase & { kind: "subordinate"; sub: SubordinateRequest };
export type JobSpec = ToolJobSpec | SubordinateJobSpec;

export interface SpecContext {
  config: TenantConfig;
  /** The schema-pattern work the request's calls may do together (one meter per request or model step). */
  patterns: PatternMeter;
  /** The calling agent's profile. */
  agent: string;
  available: CatalogTool[];
  jobTimeout?: number;
  /** The lists of the MCP servers the request names (`available` holds their tools). */
  mcp?: McpListings;
  /** The calling agent's level (0: a top-level chat); subordinate tools end at `max_depth`. */
  level?: number;
  /** The call is a tool call of its own, not one inside `parallel`: `parallel` itself may be called. */
  parallelCallable?: boolean;
  /**
   * The tools the calling chat was restricted to by a `spawn_task` `tools` subset (its own or an
   * ancestor's): every subordinate it starts is bound by them too (docs/api.md#child-chats).
   */
  toolBound?: string[];
}

export const invalidCall = (index: number, reason: string) =>
  badRequest("invalid_tool_calls", `tool_calls[${index}] is not a valid tool call: ${reason}`);

export const typeDenied = (type: string) =>
  new ApiError(403, "agent_type_denied", `Sub-agent type "${quoteName(type)}" is not allowed (permission.task).`, {
    agent: quoteName(type),
  });

/**
 * Every tool the calling agent may call here, in the order `/v1/tools` lists them: what an unknown-tool error
 * offers.
 */
export function callableToolNames(ctx: SpecContext): string[] {
  const subordinates =
    startableTypes(ctx.config, ctx.agent, ctx.level ?? 0).length > 0 ? ["spawn_task", "call_subordinate"] : [];
  return [...(ctx.parallelCallable ? ["parallel"] : []), ...ctx.available.map((t) => t.name), ...subordinates];
}

const ownId = (call: ToolCall) => (call.tool_call_id !== undefined ? { tool_call_id: call.tool_call_id } : {});

function httpRequestProblem(tool: CatalogTool, args: ToolCall["tool_args"], config: TenantConfig): string | undefined {
  if (tool.kind !== "http_request" || typeof args.url !== "string") return undefined;
  let origin: string;
  try {
    origin = new URL(args.url).origin;
  } catch {
    return undefined; // the schema reports malformed URLs
  }
  const allowed = config.builtins.http_request.allowed_origins.map((o) => new URL(o).origin);
  return allowed.includes(origin) ? undefined : `/url origin ${origin} is not in builtins.http_request.allowed_origins`;
}

/**
 * A wait that could only end by its deadline is a mistake the caller can fix now (the bounds of
 * docs/api.md#limits-and-bounds).
 */
function waitProblem(
  tool: CatalogTool,
  args: ToolCall["tool_args"],
  timeout: number,
  ctx: SpecContext,
): string | undefined {
  if (tool.kind !== "wait" || typeof args.seconds !== "number" || args.seconds <= timeout) return undefined;
  const source = ctx.jobTimeout === undefined ? "limits.tool_job_timeout_seconds" : "job_timeout";
  return `/seconds must be at most the job's deadline of ${timeout} s (${source}); wait less or raise ${source}`;
}

/** The names a subordinate call carries, each bounded like a tool name. */
const SUBORDINATE_NAMES = ["agent", "profile", "agent_profile", "label", "name", "context_id", "agent_id"] as const;

function subordinateSpec(index: number, call: ToolCall, ctx: SpecContext): SubordinateJobSpec {
  const tool = call.tool_name as "call_subordinate" | "spawn_task";
  const args = call.tool_args;
  const tools = Array.isArray(args.tools) ? args.tools.map((t, i) => [`/tools/${i}`, t] as const) : [];
  for (const [field, value] of [...SUBORDINATE_NAMES.map((f) => [`/${f}`, args[f]] as const), ...tools]) {
    const overlong = overlongName(field, value);
    if (overlong) throw invalidCall(index, overlong);
  }
  const sub = parseSubordinate(tool, args);
  if (sub.profile) requireProfile(ctx.config, sub.profile);
  sub.tools = childTools(sub, ctx);
  // A continuation without a profile takes the child's own, known only to the chat: checked there.
  if (sub.mode === "fresh" || sub.profile) {
    const type = sub.profile ?? "default";
    if (!mayStart(profile(ctx.config, ctx.agent).permission?.task, type)) throw typeDenied(type);
  }
  const limits = ctx.config.limits;
  return {
    index,
    tool_name: tool,
    ...ownId(call),
    tool_args: JSON.stringify(call.tool_args),
    kind: "subordinate",
    read_only: false,
    timeout_seconds: ctx.jobTimeout ?? Math.min(limits.subordinate_job_timeout_seconds, limits.max_job_timeout_seconds),
    sub,
  };
}

/**
 * The tools a subordinate may use: its `tools` subset, checked against what its profile allows
 * and what binds the calling chat; with no subset, the calling chat's bound (the child keeps to
 * its own profile's tools within it, whichever profile a continued child has).
 */
function childTools(sub: SubordinateRequest, ctx: SpecContext): string[] | undefined {
  const bound = ctx.toolBound;
  if (!sub.tools) return bound;
  const childProfile = sub.profile ?? "default";
  const allowed = toolsForAgent(ctx.config, childProfile, ctx.mcp)
    .map((t) => t.name)
    .filter((name) => !bound || bound.includes(name));
  const requested = sub.tools.map((t) => canonicalToolName(t, ctx.config));
  const extra = requested.filter((t) => !allowed.includes(t));
  if (extra.length) {
    const whose = bound
      ? `the '${childProfile}' profile's tools within this agent's own (${allowed.join(", ")})`
      : `the '${childProfile}' profile's tools (${allowed.join(", ")})`;
    throw badRequest(
      "invalid_subordinate_call",
      `\`tools\` must be a subset of ${whose}; not allowed: ${extra.map(quoteName).join(", ")}.`,
    );
  }
  return requested;
}

/** A call naming a tool of an MCP server that could not be listed: 502, the server is at fault. */
function mcpUnavailable(name: string, ctx: SpecContext): ApiError | undefined {
  const server = splitMcpName(name, ctx.config)?.server;
  const listing = server === undefined ? undefined : ctx.mcp?.[server];
  if (!listing || !("unavailable" in listing)) return undefined;
  return new ApiError(
    502,
    "mcp_unavailable",
    `${listing.unavailable}. Its tools cannot be used until it answers; try again later.`,
    { server: server! },
  );
}

export function jobSpec(index: number, call: ToolCall, ctx: SpecContext): JobSpec {
  const name = canonicalToolName(call.tool_name, ctx.config);
  if (PARALLEL_NAMES.has(name)) {
    throw badRequest("nested_parallel", "`parallel` cannot be nested inside another `parallel` call.");
  }
  if (SEQUENTIAL_ONLY_TOOLS.has(name)) {
    throw badRequest(
      "tool_not_allowed_in_parallel",
      `\`${name}\` cannot be used inside \`parallel\`; call it sequentially.`,
    );
  }
  const argsBytes = utf8Length(JSON.stringify(call.tool_args));
  if (argsBytes > MAX_CALL_ARGS_BYTES) {
    throw invalidCall(
      index,
      `its arguments take ${argsBytes} bytes as JSON; one call takes at most ${MAX_CALL_ARGS_BYTES}`,
    );
  }
  if (isSubordinateTool(name)) return subordinateSpec(index, call, ctx);
  const tool = ctx.available.find((t) => t.name === name);
  if (!tool) {
    const unavailable = mcpUnavailable(name, ctx);
    if (unavailable) throw unavailable;
    const names = callableToolNames(ctx).join(", ");
    throw badRequest(
      "unknown_tool",
      `tool_calls[${index}] uses unknown tool '${quoteName(name)}'. Available tools: ${names}.`,
    );
  }
  const timeout = ctx.jobTimeout ?? defaultJobTimeout(tool, ctx.config.limits);
  const problem =
    schemaProblems(tool, call.tool_args, ctx.patterns)[0] ??
    httpRequestProblem(tool, call.tool_args, ctx.config) ??
    waitProblem(tool, call.tool_args, timeout, ctx);
  if (problem) throw invalidCall(index, problem);
  return {
    index,
    tool_name: name,
    ...ownId(call),
    tool_args: JSON.stringify(call.tool_args),
    kind: "tool",
    read_only: tool.readOnly(call.tool_args),
    timeout_seconds: timeout,
    ...(tool.kind === "mcp" ? { mcp: true as const } : {}),
  };
}
