/**
 * The argument schemas of `spawn_task` and `call_subordinate` as a model sees
 * them (`/v1/tools` in docs/api.md#tool-definitions-for-an-agent, docs/api.md#the-agent-loop): only the
 * subordinate types the calling
 * agent may start appear in the `enum`s, and when `default` is denied the type
 * becomes required.
 */
import { z } from "zod";

const enumOf = (types: string[]) => z.enum(types as [string, ...string[]]);

export function spawnTaskArgs(types: string[]) {
  const agent = enumOf(types).describe("Subagent type (profile) to run the task.");
  return z.object({
    task: z.string().min(1).describe("What the subagent should do, with everything it needs to know."),
    label: z
      .string()
      .optional()
      .describe("Short label for progress messages (default: the task's first 30 characters)."),
    agent: types.includes("default") ? agent.optional() : agent,
    wait: z.boolean().optional().describe("Wait for the result (honoured at /spawn and in agent loops)."),
    context: z
      .enum(["fresh", "fork"])
      .optional()
      .describe('"fork" passes your recent conversation; "fresh" (default) nothing.'),
    tools: z.array(z.string()).optional().describe("Restrict the subagent to these of its profile's tools."),
  });
}

export function callSubordinateArgs(types: string[]) {
  const profile = enumOf(types).describe("Profile of the subordinate.");
  return z.object({
    message: z.string().min(1).describe("The instruction for the subordinate."),
    profile: types.includes("default") ? profile.optional() : profile,
    reset: z
      .boolean()
      .optional()
      .describe("true starts a fresh subordinate; false (default) continues the latest one."),
    context_id: z.string().optional().describe("Continue this earlier subordinate (requires reset=false)."),
    name: z.string().optional().describe("A name for the subordinate's chat."),
    attachments: z.array(z.string()).optional().describe("URLs the subordinate should look at."),
  });
}

export const SPAWN_TASK_DESCRIPTION =
  "Start a subagent on a task in its own chat. Start several in one message to run them in parallel.";
export const CALL_SUBORDINATE_DESCRIPTION =
  "Delegate work to a subordinate agent in its own chat; continue it later with its context_id.";
