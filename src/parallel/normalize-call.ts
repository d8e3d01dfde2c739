/**
 * Turns one tool-call item, in any shape a model writes, into `{tool_name, tool_args}`
 * (SPEC §3.1). Accepted: Agent Zero `{tool_name, tool_args}` and `{tool, args}`,
 * `{type:"function", name, parameters}`, OpenAI `{type:"function", function:{name, arguments}}`,
 * `{name, arguments}`, and a one-call `actions` wrapper. Planning fields are ignored.
 *
 * Arguments are deep-copied into null-prototype objects, so a `__proto__` key a
 * model (or an attacker) writes stays plain data all the way to the tool.
 */

import { jsonDepth, MAX_JSON_DEPTH } from "../http/json-body";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ToolCall {
  tool_name: string;
  tool_args: JsonObject;
}

export class InvalidToolCall extends Error {}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep copy of parsed JSON into null-prototype objects. */
export function cleanCopy(value: unknown): Json {
  if (Array.isArray(value)) return value.map(cleanCopy);
  if (isObject(value)) {
    const out: JsonObject = Object.create(null);
    for (const key of Object.keys(value)) out[key] = cleanCopy(value[key]);
    return out;
  }
  return value as Json;
}

const nonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;

/** `arguments` as OpenAI sends it: an object, or a JSON string of one (`""` meaning `{}`). */
function parseArguments(raw: unknown): Record<string, unknown> | undefined {
  if (isObject(raw)) return raw;
  if (typeof raw !== "string") return undefined;
  if (raw.trim() === "") return {};
  if (jsonDepth(raw) > MAX_JSON_DEPTH) throw new InvalidToolCall(`Tool request arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function normalizeToolCall(item: unknown): ToolCall {
  if (!isObject(item)) throw new InvalidToolCall("Tool request must be a dictionary");
  let req = item;
  if (!req.tool_name && !req.tool && "actions" in req) {
    const actions = req.actions;
    if (!Array.isArray(actions) || actions.length !== 1 || !isObject(actions[0])) {
      throw new InvalidToolCall("Tool request actions wrapper must contain exactly one dictionary");
    }
    req = actions[0];
  }
  const fn = isObject(req.function) ? req.function : undefined;

  let name: unknown = req.tool_name;
  if (!nonEmptyString(name)) name = req.tool;
  if (!nonEmptyString(name) && req.type === "function") name = req.name;
  if (!nonEmptyString(name) && fn) name = fn.name;
  if (!nonEmptyString(name) && "arguments" in req) name = req.name;
  if (!nonEmptyString(name)) throw new InvalidToolCall("Tool request must have a tool_name (type string) field");

  let args: Record<string, unknown> | undefined = isObject(req.tool_args) ? req.tool_args : undefined;
  if (!args && isObject(req.args)) args = req.args;
  if (!args && req.type === "function" && isObject(req.parameters)) args = req.parameters;
  if (!args && fn && "arguments" in fn) args = parseArguments(fn.arguments);
  if (!args && "arguments" in req) args = parseArguments(req.arguments);
  if (!args) throw new InvalidToolCall("Tool request must have a tool_args (type dictionary) field");

  const toolArgs = cleanCopy(args) as JsonObject;
  let toolName: string = name;
  const colon = toolName.indexOf(":");
  if (colon >= 0) {
    const action = toolName.slice(colon + 1);
    toolName = toolName.slice(0, colon);
    if (!toolName || !action) throw new InvalidToolCall("tool_name method suffix must include tool and action");
    if (!("action" in toolArgs)) toolArgs.action = action;
  }
  const method = toolArgs.method;
  if (!("action" in toolArgs) && nonEmptyString(method)) toolArgs.action = method;
  return { tool_name: toolName, tool_args: toolArgs };
}
