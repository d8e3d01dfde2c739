/**
 * The tools a calling agent may start as jobs: built-ins, the tenant's HTTP
 * tools and the listed tools of its MCP servers, filtered by the agent
 * profile's `tools` globs. Resolves a name to what
 * admission needs: the JSON Schema to validate against, whether the tool is
 * read-only (safe to retry), and its default deadline.
 */
import { z } from "zod";
import type { Limits, TenantConfig } from "../config/schema";
import type { JsonObject } from "../util/json";
import { globMatch } from "./glob";
import { HTTP_REQUEST_TOOL, WAIT_TOOL, type BuiltinTool } from "./builtins";
import { exposedTools, mcpToolName, type McpListings } from "./mcp";
import type { PatternMeter } from "../json-schema/linear-patterns";
import { checkArguments, MAX_CHECKED_STRING_CHARS, overlongString, runnableSchema } from "../json-schema/schema-safety";

export type ToolKind = "wait" | "http_request" | "http_tool" | "mcp";

export interface CatalogTool {
  name: string;
  kind: ToolKind;
  description: string;
  parameters: Record<string, unknown>;
  /** Explicit timeout of the tool, else undefined (the limits' default applies). */
  timeoutSeconds?: number;
  readOnly: (args: JsonObject) => boolean;
}

/** Each built-in's JSON Schema, generated once per isolate (every request lists the built-ins). */
const builtinSchemas = new Map<BuiltinTool, Record<string, unknown>>();

const builtinParameters = (tool: BuiltinTool) => {
  let schema = builtinSchemas.get(tool);
  if (!schema) {
    schema = z.toJSONSchema(tool.args, { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    builtinSchemas.set(tool, deepFreeze(schema));
  }
  return schema;
};

/** Shared between requests: a caller that changed it would change every later request's. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function builtins(config: TenantConfig): CatalogTool[] {
  const tools: CatalogTool[] = [
    {
      name: WAIT_TOOL.name,
      kind: "wait",
      description: WAIT_TOOL.description,
      parameters: builtinParameters(WAIT_TOOL),
      readOnly: () => true,
    },
  ];
  if (config.builtins.http_request.allowed_origins.length > 0) {
    tools.push({
      name: HTTP_REQUEST_TOOL.name,
      kind: "http_request",
      description: HTTP_REQUEST_TOOL.description,
      parameters: builtinParameters(HTTP_REQUEST_TOOL),
      readOnly: (args) => {
        const method = typeof args.method === "string" ? args.method.toUpperCase() : "GET";
        return method === "GET" || method === "HEAD";
      },
    });
  }
  return tools;
}

function mcpTools(mcp: McpListings): CatalogTool[] {
  return Object.entries(mcp).flatMap(([server, listing]) =>
    "tools" in listing
      ? exposedTools(server, listing.tools).map(
          (t): CatalogTool => ({
            name: mcpToolName(server, t.name),
            kind: "mcp",
            description: t.description,
            parameters: t.parameters,
            readOnly: () => t.read_only,
          }),
        )
      : [],
  );
}

/**
 * Every tool the agent may call, in a stable order: built-ins, the tenant's, then MCP tools.
 * `mcp`: the lists of the servers this use needs (none: no MCP tools).
 */
export function toolsForAgent(config: TenantConfig, agent: string, mcp: McpListings = {}): CatalogTool[] {
  const tenantTools: CatalogTool[] = config.tools.map((t) => ({
    name: t.name,
    kind: "http_tool",
    description: t.description,
    parameters: t.parameters,
    timeoutSeconds: t.timeout_seconds,
    readOnly: () => t.read_only,
  }));
  const globs = config.agents[agent]?.tools;
  // `wait` is always available; the profile's list governs the rest.
  return [...builtins(config), ...tenantTools, ...mcpTools(mcp)].filter(
    (t) => t.kind === "wait" || !globs || globs.some((g) => globMatch(g, t.name)),
  );
}

/**
 * Problems of `args` against the tool's schema as `<json pointer> <violation>`, empty when valid;
 * its patterns' work is counted on `patterns`, the meter the request's calls share.
 */
export function schemaProblems(tool: CatalogTool, args: JsonObject, patterns: PatternMeter): string[] {
  const { checksStrings } = runnableSchema(tool.parameters);
  const overlong = checksStrings ? overlongString(args) : undefined;
  if (overlong) {
    return [
      `${overlong} is longer than ${MAX_CHECKED_STRING_CHARS} characters, the most fanout checks against this tool's schema patterns and formats; send a shorter value`,
    ];
  }
  let result: ReturnType<typeof checkArguments>;
  try {
    result = checkArguments(tool.parameters, args, patterns);
  } catch {
    // PUT /v1/config refuses schemas that cannot validate; this guards documents stored before that check.
    return [`/ tool '${tool.name}' has a parameters schema fanout cannot apply; fix it with PATCH /v1/config`];
  }
  if (result.valid) return [];
  if (result.budgetExceeded) {
    return [
      `/ takes more work to check against tool '${tool.name}''s schema patterns than fanout spends on one request; send shorter strings, or fewer of these calls per request`,
    ];
  }
  // cfworker reports the enclosing keyword failures too; the deepest location is the useful one.
  const deepest = [...result.errors].sort((a, b) => b.instanceLocation.length - a.instanceLocation.length);
  return deepest.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"} ${e.error}`);
}

export function defaultJobTimeout(tool: CatalogTool, limits: Limits): number {
  return Math.min(tool.timeoutSeconds ?? limits.tool_job_timeout_seconds, limits.max_job_timeout_seconds);
}
