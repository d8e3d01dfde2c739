/**
 * Reads a `parallel` tool call into a command, in the validation order of
 * SPEC §3.2: body → timeout → job_timeout → job_ids → tool_calls items. Pure:
 * everything that needs the chat's state (unknown ids, caps) is checked by the
 * ChatDO afterwards, in the same atomic admission.
 */
import { badRequest } from "../http/errors";
import { jsonDepth, MAX_JSON_DEPTH } from "../http/json-body";
import type { Limits, TenantConfig } from "../config/schema";
import { defaultJobTimeout, schemaProblems, toolsForAgent, type CatalogTool } from "../tools/catalog";
import { PARALLEL_NAMES, SEQUENTIAL_ONLY_TOOLS } from "../tools/builtins";
import { coerceBool, coerceSeconds, normalizeJobIds } from "./coerce";
import { InvalidToolCall, isObject, normalizeToolCall, type JsonObject } from "./normalize-call";

export type Action = "start" | "background" | "await" | "collect" | "cancel";

export interface JobSpec {
  index: number;
  tool_name: string;
  /** JSON text: the arguments are null-prototype objects, which RPC cannot clone. */
  tool_args: string;
  kind: "tool";
  read_only: boolean;
  timeout_seconds: number;
}

export interface ParallelCommand {
  /** `undefined` when the call named no action. */
  action: Action | undefined;
  wait: boolean;
  /** How long this request may wait: `timeout` capped by `max_wait_seconds`. */
  wait_seconds: number;
  job_ids: string[];
  jobs: JobSpec[];
}

const METADATA_KEYS = ["callback_url", "notify"] as const;
const CALL_ALIASES = ["tool_calls", "calls", "items"] as const;

const invalidCalls = (message: string) => badRequest("invalid_tool_calls", message);

/** The `tool_args` of a `parallel` call, unwrapping a whole `{tool_name:"parallel", tool_args}` envelope. */
export function unwrapEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  const name = body.tool_name ?? body.tool;
  const args = body.tool_args ?? body.args;
  if (typeof name === "string" && PARALLEL_NAMES.has(name) && isObject(args)) return args;
  return body;
}

/** The action, or `undefined` when the model gave none (then `wait` decides, defaulting to true). */
function parseAction(raw: unknown): Action | undefined {
  if (raw === undefined || raw === null) return undefined;
  const word = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (word === "start" || word === "background" || word === "collect" || word === "cancel") return word;
  return "await"; // `await`, its alias `wait`, and anything unrecognised.
}

function rawToolCalls(args: Record<string, unknown>): unknown[] | undefined {
  const key = CALL_ALIASES.find((k) => k in args);
  if (key === undefined) return undefined;
  let raw = args[key];
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === "string") {
    if (jsonDepth(raw) > MAX_JSON_DEPTH) {
      throw badRequest("invalid_json", `\`tool_calls\` nests deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
    }
    try {
      raw = JSON.parse(raw);
    } catch {
      throw invalidCalls("`tool_calls` must be an array of normal tool-call objects.");
    }
  }
  if (!Array.isArray(raw)) throw invalidCalls("`tool_calls` must be an array of normal tool-call objects.");
  return raw;
}

function httpRequestProblem(tool: CatalogTool, args: JsonObject, config: TenantConfig): string | undefined {
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

function parseJob(index: number, item: unknown, available: CatalogTool[], config: TenantConfig, jobTimeout?: number): JobSpec {
  let call;
  try {
    call = normalizeToolCall(item);
  } catch (e) {
    if (e instanceof InvalidToolCall) throw invalidCalls(`tool_calls[${index}] is not a valid tool call: ${e.message}`);
    throw e;
  }
  const name = call.tool_name;
  if (PARALLEL_NAMES.has(name)) {
    throw badRequest("nested_parallel", "`parallel` cannot be nested inside another `parallel` call.");
  }
  if (SEQUENTIAL_ONLY_TOOLS.has(name)) {
    throw badRequest("tool_not_allowed_in_parallel", `\`${name}\` cannot be used inside \`parallel\`; call it sequentially.`);
  }
  const tool = available.find((t) => t.name === name);
  if (!tool) {
    const names = available.map((t) => t.name).join(", ");
    throw badRequest("unknown_tool", `tool_calls[${index}] uses unknown tool '${name}'. Available tools: ${names}.`);
  }
  const problem = schemaProblems(tool, call.tool_args)[0] ?? httpRequestProblem(tool, call.tool_args, config);
  if (problem) throw invalidCalls(`tool_calls[${index}] is not a valid tool call: ${problem}`);
  return {
    index,
    tool_name: name,
    tool_args: JSON.stringify(call.tool_args),
    kind: "tool",
    read_only: tool.readOnly(call.tool_args),
    timeout_seconds: jobTimeout ?? defaultJobTimeout(tool, config.limits),
  };
}

export function parseParallel(body: unknown, config: TenantConfig, agent: string): ParallelCommand {
  if (!isObject(body)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  const args = unwrapEnvelope(body);
  if (!isObject(args)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  for (const key of METADATA_KEYS) {
    if (key in args) {
      throw badRequest(
        "option_not_allowed_in_tool_args",
        `\`${key}\` is request metadata; pass it as a query parameter, not inside tool arguments.`,
      );
    }
  }
  const limits: Limits = config.limits;
  const timeout = coerceSeconds("timeout", args.timeout) ?? limits.default_timeout_seconds;
  const jobTimeout = coerceSeconds("job_timeout", args.job_timeout);
  if (jobTimeout !== undefined && jobTimeout > limits.max_job_timeout_seconds) {
    throw badRequest(
      "invalid_timeout",
      `\`job_timeout\` must be at most ${limits.max_job_timeout_seconds} seconds (limits.max_job_timeout_seconds).`,
    );
  }
  const jobIds = normalizeJobIds(args.job_ids);
  if (jobIds.length > limits.max_job_ids) {
    throw badRequest("invalid_job_ids", `\`job_ids\` supports at most ${limits.max_job_ids} ids.`);
  }
  const action = parseAction(args.action);
  const waitDefault = !(action === "start" || action === "background" || action === "collect");
  const wait = action === "await" ? true : coerceBool(args.wait, waitDefault);
  const base = { action, wait, wait_seconds: Math.min(timeout, limits.max_wait_seconds), job_ids: jobIds };

  if (action === "cancel") {
    if (jobIds.length === 0) throw badRequest("no_job_ids_to_cancel", "No `job_ids` were provided to cancel.");
    return { ...base, wait: false, jobs: [] };
  }

  const items = rawToolCalls(args);
  if (items !== undefined) {
    if (items.length === 0) throw invalidCalls("`tool_calls` must contain at least one tool call.");
    if (items.length > limits.max_calls) throw invalidCalls(`\`tool_calls\` supports at most ${limits.max_calls} items.`);
  }
  const available = toolsForAgent(config, agent);
  const jobs = (items ?? []).map((item, i) => parseJob(i, item, available, config, jobTimeout));
  if (jobs.length === 0 && jobIds.length === 0) {
    throw badRequest(
      "nothing_to_do",
      "provide `tool_calls` to start parallel jobs, or `job_ids` to await/cancel existing jobs.",
    );
  }
  return { ...base, jobs };
}

