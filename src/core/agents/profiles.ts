/**
 * Agent profiles (`agents` in docs/api.md#names-and-agent-profiles): the calling agent's policy and a child's
 * behaviour. A missing `default` profile means all tools, no task rules, 25
 * steps and a built-in system prompt.
 */
import type { TenantConfig } from "../config/schema";
import { quoteName } from "../calls/names";
import { badRequest } from "../http/errors";

export const DEFAULT_PROFILE = "default";
export const DEFAULT_SYSTEM_PROMPT =
  "You are a capable assistant working on one task for another agent. Use the tools you have when they help, " +
  "run independent tool calls in one message, and finish with a concise answer the other agent can use as is.";

export type Profile = TenantConfig["agents"][string];

export function profileNames(config: TenantConfig): string[] {
  return [DEFAULT_PROFILE, ...Object.keys(config.agents).filter((a) => a !== DEFAULT_PROFILE)];
}

export function profile(config: TenantConfig, name: string): Profile {
  return config.agents[name] ?? { description: "", max_steps: 25 };
}

export function requireProfile(config: TenantConfig, name: string): string {
  const names = profileNames(config);
  if (!names.includes(name)) {
    throw badRequest(
      "unknown_profile",
      `Agent profile '${quoteName(name)}' not found. Use one of the available profiles: ${names.join(", ")}.`,
    );
  }
  return name;
}
