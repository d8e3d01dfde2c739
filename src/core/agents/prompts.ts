/**
 * The prompt contracts in `prompts/`, rendered for one calling agent: the
 * subordinate types it may not start never appear (docs/api.md#tool-definitions-for-an-agent,
 * docs/api.md#caps-permissions-and-depth), and the
 * spawning prompts are empty when it may start none.
 */
import callSubordinatePrompt from "../../../prompts/call_subordinate.md";
import orchestrationPrompt from "../../../prompts/orchestration.md";
import parallelPrompt from "../../../prompts/parallel.md";
import spawnTaskPrompt from "../../../prompts/spawn_task.md";
import type { TenantConfig } from "../config/schema";
import { profile } from "./profiles";
import { startableTypes } from "./tool-definitions";

export interface RenderedPrompts {
  parallel: string;
  spawn_task: string;
  call_subordinate: string;
  orchestration: string;
}

export const PROMPT_SOURCES = {
  parallel: parallelPrompt,
  spawn_task: spawnTaskPrompt,
  call_subordinate: callSubordinatePrompt,
  orchestration: orchestrationPrompt,
} as const;

export function renderPrompts(config: TenantConfig, agent: string, level = 0): RenderedPrompts {
  const types = startableTypes(config, agent, level);
  const list = types
    .map(
      (t) =>
        `- \`${t}\`: ${profile(config, t).description || (t === "default" ? "a general-purpose agent" : "no description")}`,
    )
    .join("\n");
  const withTypes = (template: string) => (types.length ? template.replace("{{agent_types}}", list) : "");
  return {
    parallel: parallelPrompt,
    spawn_task: withTypes(spawnTaskPrompt),
    call_subordinate: withTypes(callSubordinatePrompt),
    orchestration: orchestrationPrompt,
  };
}
