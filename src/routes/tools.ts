/**
 * `GET /v1/tools?agent=NAME` (SPEC §3.5): the function definitions and prompts
 * to give a model acting as that agent in a top-level chat (A0).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { renderPrompts } from "../agents/prompts";
import { DEFAULT_PROFILE, profileNames } from "../agents/profiles";
import { toolDefinitions } from "../agents/tool-definitions";
import { ApiError } from "../http/errors";
import { tenantConfig } from "./context";

export const toolsRoutes = new Hono<AppEnv>().get("/tools", async (c) => {
  const config = await tenantConfig(c);
  const agent = c.req.query("agent") ?? DEFAULT_PROFILE;
  const names = profileNames(config);
  if (!names.includes(agent)) {
    throw new ApiError(404, "unknown_profile", `Agent profile '${agent}' not found. Use one of the available profiles: ${names.join(", ")}.`);
  }
  return c.json({
    tools: toolDefinitions(config, agent, 0),
    prompts: renderPrompts(config, agent, 0),
  });
});
