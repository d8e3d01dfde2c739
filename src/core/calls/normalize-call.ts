/**
 * Turns one tool-call item, in any shape a model or an SDK writes, into
 * `{tool_name, tool_args, tool_call_id?}` (docs/api.md#arguments-and-call-shapes). Accepted: Agent Zero
 * `{tool_name, tool_args}` and `{tool, args}`, `{type:"function", name, parameters}`,
 * OpenAI `{type:"function", function:{name, arguments}}`, `{name, arguments}`,
 * Anthropic `{type:"tool_use", id, name, input}`, the AI SDK's
 * `{type?:"tool-call", toolCallId, toolName, input}` (also `args`), Gemini
 * `{functionCall:{name, args}}` (also `function_call`), and a one-call `actions`
 * wrapper. Planning fields are ignored.
 *
 * The call's own id is kept so a bot can hand each result back to its model
 * without a job → call map of its own; an id no model could have meant (too
 * long, not printable, not a string) is dropped rather than refused.
 *
 * Arguments are deep-copied into null-prototype objects, so a `__proto__` key a
 * model (or an attacker) writes stays plain data all the way to the tool.
 */

import { jsonDepth, MAX_JSON_DEPTH } from "../http/json-body";
import { pyRepr } from "./coerce";
import { MAX_NAME_CHARS, overlongName } from "./names";
import { cleanCopy, isObject, type JsonObject } from "../util/json";

export interface ToolCall {
  tool_name: string;
  tool_args: JsonObject;
  /**
   * The id the call came with (OpenAI/Anthropic `id`, AI SDK `toolCallId`, `tool_call_id`); absent when it
   * had no usable one.
   */
  tool_call_id?: string;
}

export class InvalidToolCall extends Error {}

const nonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;

export const MAX_TOOL_CALL_ID_CHARS = 128;
/**
 * Printable as Python's `str.isprintable()` has it: no control, format, private-use or unassigned
 * characters, and no separator but the space.
 */
const PRINTABLE = /^(?:[^\p{C}\p{Z}]| )+$/u;

/** `value` as a call id: a string of 1–128 printable characters (code points), else undefined. */
export function usableCallId(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 2 * MAX_TOOL_CALL_ID_CHARS) return undefined;
  if ([...value].length > MAX_TOOL_CALL_ID_CHARS || !PRINTABLE.test(value)) return undefined;
  return value;
}

/** `arguments` as OpenAI sends it: an object, or a JSON string of one (`""` meaning `{}`). */
/**
 * A call's arguments written as JSON text (OpenAI's `arguments`, the AI SDK's `input`), or as an object.
 * Text that is not one JSON object is refused naming the field and the call, so whoever reads it (a
 * bot developer, or the model in its next turn) knows which call to write again.
 */
function parseArguments(raw: unknown, field: string, id: string | undefined): Record<string, unknown> {
  if (isObject(raw)) return raw;
  const call = id !== undefined ? `call ${pyRepr(id)}` : "the call";
  if (typeof raw !== "string") throw new InvalidToolCall(`\`${field}\` of ${call} must be a JSON object`);
  if (raw.trim() === "") return {};
  if (jsonDepth(raw) > MAX_JSON_DEPTH)
    throw new InvalidToolCall(`Tool request arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    const why = e instanceof Error ? e.message : "not JSON";
    throw new InvalidToolCall(`\`${field}\` of ${call} is not valid JSON (${why}); write it as one JSON object`);
  }
  if (!isObject(parsed))
    throw new InvalidToolCall(`\`${field}\` of ${call} must be a JSON object, not ${kindOf(parsed)}`);
  return parsed;
}

const kindOf = (value: unknown) =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "number"
        ? "a number"
        : `a ${typeof value}`;

/** The call inside a one-call `actions` wrapper, or the item itself. */
function unwrapActions(item: Record<string, unknown>): Record<string, unknown> {
  if (item.tool_name || item.tool || !("actions" in item)) return item;
  const actions = item.actions;
  if (!Array.isArray(actions) || actions.length !== 1 || !isObject(actions[0])) {
    throw new InvalidToolCall("Tool request actions wrapper must contain exactly one dictionary");
  }
  return actions[0];
}

/** Gemini's `functionCall` part (`function_call` in its Python SDK and in OpenAI's legacy messages). */
const geminiCall = (req: Record<string, unknown>) =>
  isObject(req.functionCall) ? req.functionCall : isObject(req.function_call) ? req.function_call : undefined;

/**
 * The tool name as the call wrote it, and whether it came in a provider's shape (OpenAI,
 * Anthropic, AI SDK, Gemini), where `id` is the call's id; in Agent Zero's shapes it is a planning field.
 */
function writtenName(req: Record<string, unknown>): { name?: string; provider: boolean } {
  if (nonEmptyString(req.tool_name)) return { name: req.tool_name, provider: false };
  if (nonEmptyString(req.tool)) return { name: req.tool, provider: false };
  const fn = isObject(req.function) ? req.function : undefined;
  const candidates = [
    req.type === "function" || req.type === "tool_use" ? req.name : undefined,
    fn?.name,
    req.toolName,
    geminiCall(req)?.name,
    "arguments" in req || "input" in req || "args" in req ? req.name : undefined,
  ];
  return { name: candidates.find(nonEmptyString), provider: true };
}

/** The first usable id the call carries; a wrapped call may carry it on its `actions` wrapper. */
function ownId(item: Record<string, unknown>, req: Record<string, unknown>, provider: boolean): string | undefined {
  const candidates = [
    req.tool_call_id,
    req.toolCallId,
    // OpenAI's Responses API: `id` names the output item, `call_id` the call its output answers.
    req.type === "function_call" ? req.call_id : undefined,
    provider ? req.id : undefined,
    geminiCall(req)?.id,
    req === item ? undefined : item.tool_call_id,
  ];
  for (const c of candidates) {
    const id = usableCallId(c);
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * The call's own id and the name it was written with, read without judging the rest of the
 * call: `/tool-calls` answers even a malformed call under its id and name.
 */
export function callIdentity(item: unknown): { tool_call_id?: string; name?: string } {
  if (!isObject(item)) return {};
  let req: Record<string, unknown>;
  try {
    req = unwrapActions(item);
  } catch {
    req = item;
  }
  const { name, provider } = writtenName(req);
  const tool_call_id = ownId(item, req, provider);
  // An entry answers with the name it was called by, never more of it than a name may have.
  return {
    ...(tool_call_id !== undefined ? { tool_call_id } : {}),
    ...(name !== undefined ? { name: name.slice(0, MAX_NAME_CHARS) } : {}),
  };
}

function readArgs(req: Record<string, unknown>, id: string | undefined): Record<string, unknown> | undefined {
  const fn = isObject(req.function) ? req.function : undefined;
  const gemini = geminiCall(req);
  if (isObject(req.tool_args)) return req.tool_args;
  if (isObject(req.args)) return req.args;
  if (req.type === "function" && isObject(req.parameters)) return req.parameters;
  if (fn && "arguments" in fn) return parseArguments(fn.arguments, "arguments", id);
  if ("arguments" in req) return parseArguments(req.arguments, "arguments", id);
  // Anthropic and the AI SDK: `input` (a JSON string at the AI SDK's provider level); older AI SDKs: `args`.
  if ("input" in req) return parseArguments(req.input, "input", id);
  if (nonEmptyString(req.toolName) && "args" in req) return parseArguments(req.args, "args", id);
  // Gemini leaves `args` out of a call to a function without parameters.
  if (gemini)
    return "args" in gemini
      ? parseArguments(gemini.args, "args", id)
      : "arguments" in gemini
        ? parseArguments(gemini.arguments, "arguments", id)
        : {};
  return undefined;
}

export function normalizeToolCall(item: unknown): ToolCall {
  if (!isObject(item)) throw new InvalidToolCall("Tool request must be a dictionary");
  const req = unwrapActions(item);
  const { name, provider } = writtenName(req);
  if (name === undefined) throw new InvalidToolCall("Tool request must have a tool_name (type string) field");
  const overlong = overlongName("Tool request tool_name", name);
  if (overlong) throw new InvalidToolCall(overlong);
  const tool_call_id = ownId(item, req, provider);
  const args = readArgs(req, tool_call_id);
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
  return { tool_name: toolName, tool_args: toolArgs, ...(tool_call_id !== undefined ? { tool_call_id } : {}) };
}
