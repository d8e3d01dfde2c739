/**
 * What `tools/list` answers on fanout's MCP endpoint (docs/mcp.md#tools): the tools the calling
 * agent may start as jobs, in the order `GET /v1/tools` lists them, each with its input schema and
 * whether it only reads. `parallel` is left out: an MCP client runs its calls side by side itself,
 * and every call is its own job already.
 */
import type { ToolDefinition } from "../agents/llm";
import type { CatalogTool } from "../tools/catalog";

/** A page of `tools/list` holds at most this many tools. */
export const TOOLS_PAGE_SIZE = 100;

export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations: { readOnlyHint: boolean };
  /** 2025-11-25 only: a call may be run as a task or answered at once (docs/mcp.md#tasks). */
  execution?: { taskSupport: "optional" };
}

/**
 * The agent's tools as MCP lists them. `readOnlyHint` is the tool's `read_only`; `http_request`
 * reads or writes by its method, so it is not promised as read-only, nor is a subagent.
 */
export function mcpTools(defs: ToolDefinition[], catalog: CatalogTool[], o: { taskSupport: boolean }): McpTool[] {
  const byName = new Map(catalog.map((t) => [t.name, t]));
  return defs.flatMap((def) => {
    if (def.type !== "function" || def.function.name === "parallel") return [];
    const { name, description = "", parameters = {} } = def.function;
    const tool = byName.get(name);
    const readOnlyHint = tool !== undefined && tool.kind !== "http_request" && tool.readOnly({});
    return [
      {
        name,
        description,
        // MCP requires an object schema at the root; a tool's schema without a `type` takes any arguments object.
        inputSchema: { ...parameters, type: "object" as const },
        annotations: { readOnlyHint },
        ...(o.taskSupport ? { execution: { taskSupport: "optional" as const } } : {}),
      },
    ];
  });
}

export class InvalidCursor extends Error {}

const CURSOR_PREFIX = "tools:";

/** One page of the list from an opaque `cursor`; a cursor this endpoint did not give is refused. */
export function toolsPage(tools: McpTool[], cursor: string | undefined): { tools: McpTool[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const decoded = decodeCursor(cursor);
    if (decoded === undefined || decoded > tools.length)
      throw new InvalidCursor("The cursor is not one this endpoint gave: list again without it.");
    start = decoded;
  }
  const end = start + TOOLS_PAGE_SIZE;
  const page = tools.slice(start, end);
  return end < tools.length ? { tools: page, nextCursor: btoa(`${CURSOR_PREFIX}${end}`) } : { tools: page };
}

function decodeCursor(cursor: string): number | undefined {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    return undefined;
  }
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const n = Number(text.slice(CURSOR_PREFIX.length));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
