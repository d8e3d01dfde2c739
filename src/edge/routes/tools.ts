/**
 * `GET /v1/tools?agent=NAME` (docs/api.md#tool-definitions-for-an-agent): the function definitions and prompts
 * to give a model acting as that agent in a top-level chat (A0), MCP tools
 * included.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { renderPrompts } from "../../core/agents/prompts";
import { DEFAULT_PROFILE, profileNames } from "../../core/agents/profiles";
import { toolDefinitions } from "../../core/agents/tool-definitions";
import { quoteName } from "../../core/calls/names";
import { ApiError } from "../../core/http/errors";
import { loadMcpListings } from "../../core/tools/mcp-listings";
import { tenantConfig, tenantStub } from "../requests/context";

export const toolsRoutes = new Hono<AppEnv>().get("/tools", async (c) => {
  const config = await tenantConfig(c);
  const agent = c.req.query("agent") ?? DEFAULT_PROFILE;
  const names = profileNames(config);
  if (!names.includes(agent)) {
    throw new ApiError(
      404,
      "unknown_profile",
      `Agent profile '${quoteName(agent)}' not found. Use one of the available profiles: ${names.join(", ")}.`,
    );
  }
  // A server that cannot be listed (and never was) leaves its tools out rather than failing the list.
  const mcp = await loadMcpListings(
    tenantStub(c),
    config.mcp_servers.map((s) => s.name),
  );
  return c.json({
    tools: toolDefinitions(config, agent, 0, undefined, mcp),
    prompts: renderPrompts(config, agent, 0),
  });
});
