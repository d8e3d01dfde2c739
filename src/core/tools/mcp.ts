/**
 * MCP servers as tool sources (docs/api.md#mcp-servers), the parts that need no network: how
 * an MCP tool is named to models and in `parallel`, which servers a request
 * names, and how a `tools/call` result becomes a job's result or error.
 */
import type { TenantConfig } from "../config/schema";
import { resultText, type ContentPart, type ToolCallContent } from "./mcp-content";

/** OpenAI function names allow no dots, so models see `<server>__<tool>`. */
export const MCP_SEPARATOR = "__";
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** One tool of a server's `tools/list`, as fanout keeps it. */
export interface McpTool {
  /** The tool's name on its server. */
  name: string;
  description: string;
  /** Its `inputSchema`, without `$schema`. */
  parameters: Record<string, unknown>;
  /** `annotations.readOnlyHint: true`; absent means the tool may have side effects. */
  read_only: boolean;
}

/** A server's tool list, or why there is none (unreachable and never listed). */
export type McpListing = { tools: McpTool[]; fetched_at: number } | { unavailable: string };
export type McpListings = Record<string, McpListing>;

export const mcpToolName = (server: string, tool: string) => `${server}${MCP_SEPARATOR}${tool}`;

/**
 * The configured server and tool a name refers to, in either spelling (`docs__search` or
 * `docs.search`). Server names may contain `_`, so the longest configured name that fits wins.
 */
export function splitMcpName(name: string, config: TenantConfig): { server: string; tool: string } | undefined {
  let best: { server: string; tool: string } | undefined;
  for (const { name: server } of config.mcp_servers) {
    for (const separator of [MCP_SEPARATOR, "."]) {
      const prefix = server + separator;
      if (name.length > prefix.length && name.startsWith(prefix) && (!best || server.length > best.server.length)) {
        best = { server, tool: name.slice(prefix.length) };
      }
    }
  }
  return best;
}

/** The name a job stores and models see: `docs.search` becomes `docs__search`; other names stay. */
export function canonicalToolName(name: string, config: TenantConfig): string {
  const parts = splitMcpName(name, config);
  return parts ? mcpToolName(parts.server, parts.tool) : name;
}

/**
 * The servers a request body may name, to list only those before admission. A cheap scan of
 * the JSON text: a false hit costs a cached lookup, and a server only fails a request when a
 * call really names one of its tools.
 */
export function serversNamedIn(body: unknown, config: TenantConfig): string[] {
  if (config.mcp_servers.length === 0) return [];
  const text = JSON.stringify(body) ?? "";
  return config.mcp_servers
    .map((s) => s.name)
    .filter((s) => text.includes(`"${s}${MCP_SEPARATOR}`) || text.includes(`"${s}.`));
}

/** The listed tools models can call: names OpenAI accepts, each server's tools in their own order. */
export function exposedTools(server: string, tools: McpTool[]): McpTool[] {
  return tools.filter((t) => FUNCTION_NAME.test(mcpToolName(server, t.name)));
}

export type ListedTool = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
};

/** A `tools/list` entry as fanout keeps it; the SDK has already checked the shape. */
export function keptTool(tool: ListedTool): McpTool {
  const { $schema: _ignored, ...parameters } = tool.inputSchema;
  return {
    name: tool.name,
    description: tool.description ?? "",
    parameters,
    read_only: tool.annotations?.readOnlyHint === true,
  };
}

/**
 * A `tools/call` result as a job outcome: the text a model reads (see `./mcp-content`), and the parts
 * as sent when that text stands in for some of them (an image, a resource). Parts that are all text
 * are the result already: storing them again would double the row.
 */
export function callOutcome(
  result: ToolCallContent & { isError?: boolean },
):
  | { state: "success"; result: string; content?: ContentPart[] }
  | { state: "error"; error: string; error_type: "tool_error"; content?: ContentPart[] } {
  const text = resultText(result);
  const parts = result.content ?? [];
  const content = parts.some((p) => p.type !== "text") ? { content: parts } : {};
  if (result.isError)
    return {
      state: "error",
      error: text || "The MCP tool reported an error without a message.",
      error_type: "tool_error",
      ...content,
    };
  return { state: "success", result: text, ...content };
}
