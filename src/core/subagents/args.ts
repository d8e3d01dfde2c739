/**
 * Reading `call_subordinate` (Agent Zero) and `spawn_task` (Zhin) arguments
 * into one request for a child chat (docs/api.md#child-chats). Only what needs no chat state
 * is decided here; whether a `context_id` is this chat's child, still running
 * or of another profile is checked by the ChatDO at admission.
 */
import { badRequest } from "../http/errors";
import type { JsonObject } from "../util/json";
import { coerceBool } from "../calls/coerce";

export const SUBORDINATE_TOOLS = ["call_subordinate", "spawn_task"] as const;
export type SubordinateTool = (typeof SUBORDINATE_TOOLS)[number];
export const isSubordinateTool = (name: string): name is SubordinateTool =>
  (SUBORDINATE_TOOLS as readonly string[]).includes(name);

const NAME_LENGTH = 80;
const LABEL_LENGTH = 30;

export interface SubordinateRequest {
  tool: SubordinateTool;
  /** What the child is asked to do. */
  message: string;
  /** The profile named in the call, or undefined (then `default`, or the child's own on continuation). */
  profile?: string;
  /** `fresh`: a new child. `continue`: the child named by `context_id`. `latest`: this chat's latest default child. */
  mode: "fresh" | "continue" | "latest";
  context_id?: string;
  name?: string;
  label: string;
  attachments: string[];
  /** spawn_task `context: "fork"` passes the calling chat's recent agent-loop messages. */
  fork: boolean;
  /** spawn_task `tools`: a subset of the child profile's tools. */
  tools?: string[];
  /** spawn_task `wait` (honoured at /spawn and in agent loops). */
  wait?: boolean;
}

const invalid = (message: string) => badRequest("invalid_subordinate_call", message);
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/** An optional string argument: absent or null is omitted; any other non-string is refused, not ignored. */
function optionalText(v: unknown, name = "argument"): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalid(`\`${name}\` must be a string.`);
  return v.trim() || undefined;
}

export function firstChars(s: string, n: number): string {
  return [...s.replace(/\s+/g, " ").trim()].slice(0, n).join("");
}

function spawnLabel(task: string, label: unknown): string {
  const given = text(label);
  if (given) return given;
  const chars = [...task];
  return chars.length <= LABEL_LENGTH ? task : `${chars.slice(0, LABEL_LENGTH).join("")}...`;
}

function attachmentList(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((a) => typeof a === "string")) {
    throw invalid("`attachments` must be an array of URL strings.");
  }
  return v as string[];
}

export function parseCallSubordinate(args: JsonObject): SubordinateRequest {
  const message = text(args.message);
  if (!message) throw invalid("call_subordinate requires `tool_args.message`.");
  const contextId = optionalText(args.context_id ?? args.agent_id, "context_id");
  const reset = coerceBool(args.reset, false);
  if (contextId && reset) {
    throw invalid(
      "`context_id` continues an existing subordinate and requires reset=false. Omit `context_id` to create a fresh subordinate.",
    );
  }
  const name = optionalText(args.name, "name");
  return {
    tool: "call_subordinate",
    message,
    profile: optionalText(args.profile ?? args.agent_profile, "profile"),
    mode: reset ? "fresh" : contextId ? "continue" : "latest",
    context_id: contextId,
    name,
    label: name ?? firstChars(message, NAME_LENGTH),
    attachments: attachmentList(args.attachments),
    fork: false,
  };
}

export function parseSpawnTask(args: JsonObject): SubordinateRequest {
  const task = text(args.task);
  if (!task) throw invalid("spawn_task requires `tool_args.task`.");
  if ("skills" in args) throw invalid("`skills` is not supported yet; describe what the subagent needs in `task`.");
  const context = args.context === undefined || args.context === null ? "fresh" : args.context;
  if (context !== "fresh" && context !== "fork") throw invalid('`context` must be "fresh" or "fork".');
  let tools: string[] | undefined;
  if (args.tools !== undefined && args.tools !== null) {
    if (!Array.isArray(args.tools) || !args.tools.every((t) => typeof t === "string")) {
      throw invalid("`tools` must be an array of tool names.");
    }
    tools = args.tools as string[];
  }
  const label = spawnLabel(task, args.label);
  return {
    tool: "spawn_task",
    message: task,
    profile: optionalText(args.agent, "agent"),
    mode: "fresh",
    name: optionalText(args.label, "label") ?? firstChars(task, NAME_LENGTH),
    label,
    attachments: [],
    fork: context === "fork",
    tools,
    wait: args.wait === undefined ? undefined : coerceBool(args.wait, false),
  };
}

export function parseSubordinate(tool: SubordinateTool, args: JsonObject): SubordinateRequest {
  return tool === "call_subordinate" ? parseCallSubordinate(args) : parseSpawnTask(args);
}
