/**
 * The tools an agent loop offers its model, in OpenAI function-calling form
 * (docs/api.md#the-agent-loop): the profile's tools, `wait`, and `spawn_task` /
 * `call_subordinate` only while the agent's level is below `max_depth` and
 * some subordinate type is permitted (left out of the list, not just refused).
 */
import { z } from "zod";
import type { TenantConfig } from "../config/schema";
import {
  CALL_SUBORDINATE_DESCRIPTION,
  callSubordinateArgs,
  SPAWN_TASK_DESCRIPTION,
  spawnTaskArgs,
} from "../subagents/schemas";
import { parallelArgs } from "../api/calls";
import { toolsForAgent } from "../tools/catalog";
import type { McpListings } from "../tools/mcp";
import type { ToolDefinition } from "./llm";
import { permittedTypes } from "./permission";
import { profile, profileNames } from "./profiles";

const schemaOf = (schema: z.ZodType) => {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
};

const fn = (name: string, description: string, parameters: Record<string, unknown>): ToolDefinition => ({
  type: "function",
  function: { name, description, parameters },
});

/** Subordinate types `agent` may start at `level`: none at or beyond the depth limit. */
export function startableTypes(config: TenantConfig, agent: string, level: number): string[] {
  if (level >= config.limits.max_depth) return [];
  return permittedTypes(profile(config, agent).permission?.task, profileNames(config));
}

const PARALLEL_DESCRIPTION =
  "Run independent tool calls at the same time and get all results together; also awaits background jobs by id.";

/** `only`: a spawn_task `tools` list narrowing the profile's; `mcp`: the MCP servers' lists to include. */
export function toolDefinitions(
  config: TenantConfig,
  agent: string,
  level: number,
  only?: string[],
  mcp: McpListings = {},
): ToolDefinition[] {
  const tools = toolsForAgent(config, agent, mcp).filter((t) => !only || t.kind === "wait" || only.includes(t.name));
  const defs = [
    fn("parallel", PARALLEL_DESCRIPTION, schemaOf(parallelArgs)),
    ...tools.map((t) => fn(t.name, t.description, t.parameters)),
  ];
  const types = startableTypes(config, agent, level);
  if (types.length) {
    defs.push(fn("spawn_task", SPAWN_TASK_DESCRIPTION, schemaOf(spawnTaskArgs(types))));
    defs.push(fn("call_subordinate", CALL_SUBORDINATE_DESCRIPTION, schemaOf(callSubordinateArgs(types))));
  }
  return defs;
}
