/**
 * Reads a `parallel` tool call into a command, in the validation order of
 * docs/api.md#validation-order-and-errors: body → timeout → job_timeout → job_ids → tool_calls items. Pure:
 * everything that needs the chat's state (unknown ids, caps) is checked by the
 * ChatDO afterwards, in the same atomic admission.
 */
import { refuseQueryKeys } from "../calls/query-keys";
import { badRequest } from "../http/errors";
import { jsonDepth, MAX_JSON_DEPTH } from "../http/json-body";
import type { Limits, TenantConfig } from "../config/schema";
import { invalidCall, jobSpec, type JobSpec, type SpecContext } from "./job-spec";
import { PARALLEL_NAMES } from "../tools/builtins";
import { PatternMeter } from "../json-schema/linear-patterns";
import { toolsForAgent } from "../tools/catalog";
import { coerceBool, coerceSeconds, normalizeJobIds } from "../calls/coerce";
import { InvalidToolCall, normalizeToolCall } from "../calls/normalize-call";
import { isObject } from "../util/json";

export type { JobSpec };

export type Action = "start" | "background" | "await" | "collect" | "cancel";

export interface ParallelCommand {
  /** `undefined` when the call named no action. */
  action: Action | undefined;
  wait: boolean;
  /** How long this request may wait: `timeout` capped by `max_wait_seconds`. */
  wait_seconds: number;
  job_ids: string[];
  jobs: JobSpec[];
}

const CALL_ALIASES = ["tool_calls", "calls", "items"] as const;

const invalidCalls = (message: string) => badRequest("invalid_tool_calls", message);

/** The `tool_args` of a `parallel` call, unwrapping a whole `{tool_name:"parallel", tool_args}` envelope. */
export function unwrapEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  const name = body.tool_name ?? body.tool;
  const args = body.tool_args ?? body.args;
  if (typeof name === "string" && PARALLEL_NAMES.has(name) && isObject(args)) return args;
  return body;
}

/**
 * The action, or `undefined` when the model gave none (then `wait` decides, defaulting to true).
 * An unrecognised action waits like `await`, unless the call says `wait: false`: then, as in
 * Agent Zero, it returns at once like `collect` (the model asked not to be held).
 */
function parseAction(raw: unknown, wait: unknown): Action | undefined {
  if (raw === undefined || raw === null) return undefined;
  const word = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (word === "start" || word === "background" || word === "collect" || word === "cancel") return word;
  if (word === "await" || word === "wait") return "await";
  return coerceBool(wait, true) ? "await" : "collect";
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

function parseJob(index: number, item: unknown, ctx: SpecContext): JobSpec {
  try {
    return jobSpec(index, normalizeToolCall(item), ctx);
  } catch (e) {
    if (e instanceof InvalidToolCall) throw invalidCall(index, e.message);
    throw e;
  }
}

/**
 * `tools`: the calling agent's tools with the MCP lists they came from; `available` is narrower
 * than the profile's under a spawn_task `tools` list. Default: the profile's tools, no MCP.
 */
export function parseParallel(
  body: unknown,
  config: TenantConfig,
  agent: string,
  tools: Pick<SpecContext, "available" | "mcp"> & Partial<Pick<SpecContext, "patterns">> = {
    available: toolsForAgent(config, agent),
  },
): ParallelCommand {
  if (!isObject(body)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  const args = unwrapEnvelope(body);
  if (!isObject(args)) throw badRequest("invalid_json", "Request body must be a JSON object.");
  // A model must not redirect results, pose as the bot or set what it may spend (docs/api.md#budgets).
  refuseQueryKeys(args, "tool arguments");
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
  const action = parseAction(args.action, args.wait);
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
    if (items.length > limits.max_calls)
      throw invalidCalls(`\`tool_calls\` supports at most ${limits.max_calls} items.`);
  }
  // The request's calls share one pattern meter (a request's own, unless its caller brought one).
  const ctx: SpecContext = { config, agent, patterns: new PatternMeter(), ...tools, jobTimeout };
  const jobs = (items ?? []).map((item, i) => parseJob(i, item, ctx));
  if (jobs.length === 0 && jobIds.length === 0) {
    throw badRequest(
      "nothing_to_do",
      "provide `tool_calls` to start parallel jobs, or `job_ids` to await/cancel existing jobs.",
    );
  }
  return { ...base, jobs };
}
