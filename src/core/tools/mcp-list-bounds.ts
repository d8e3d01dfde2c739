/**
 * What fanout keeps of one server's `tools/list` (docs/api.md#mcp-servers). A server is as
 * untrusted as a tenant's input: one that listed 20,000 tools made fanout log a line per tool
 * past the 256 it kept, and workerd, holding a socket to its log sink per line, stopped
 * answering every tenant. So a listing is bounded (pages and bytes by the client, the rest
 * here), every tool in it is checked so that validating arguments cannot stall the isolate
 * (../json-schema/schema-safety), and what is left out is told in one line per listing.
 * Results are never checked against `outputSchema`: fanout does not list tools on the client
 * that calls them, so the SDK has none to check.
 */
import { quoteName } from "../calls/names";
import { MAX_CONFIG_PROGRAM, MAX_SCHEMA_PROGRAM } from "../json-schema/linear-patterns";
import { MAX_CONFIG_PATTERN_CHARS, patternSteps, schemaHazards, schemaPatterns } from "../json-schema/schema-safety";
import { keptTool, type ListedTool, type McpTool } from "./mcp";

export const MCP_LIST_BOUNDS = {
  /** Bytes of answers one listing reads; later pages are left out. */
  bytes: 1_048_576,
  /** Pages one listing follows; a server that keeps paging is cut off here. */
  pages: 20,
  /** Tools kept of one server. */
  tools: 256,
  /** A tool's name, as the server calls it. */
  nameChars: 64,
  /** A tool's description; a longer one is cut. */
  descriptionChars: 2_000,
  /** A tool's `inputSchema` as JSON. */
  schemaBytes: 16_384,
  /** The kept tools as stored: one row, under the 1 MB fanout allows any row. */
  storedBytes: 1_000_000,
} as const;

/** Where a listing stopped before the server's last page. */
export type ListingCut = { pages: number } | { bytes: number } | undefined;

const quoted = (name: string) => `'${quoteName(name)}'`;

/** Counts of tools left out, by reason, with the first one's name: one line however many there are. */
class LeftOut {
  readonly #reasons = new Map<string, { count: number; first: string; detail?: string }>();

  add(reason: string, tool: string, detail?: string): void {
    const seen = this.#reasons.get(reason);
    if (seen) seen.count++;
    else this.#reasons.set(reason, { count: 1, first: tool, ...(detail ? { detail } : {}) });
  }

  get size(): number {
    let n = 0;
    for (const { count } of this.#reasons.values()) n += count;
    return n;
  }

  describe(): string[] {
    return [...this.#reasons].map(
      ([reason, { count, first, detail }]) =>
        `${count} ${reason} (${count > 1 ? "first " : ""}${quoted(first)}${detail ? `: ${detail}` : ""})`,
    );
  }
}

/**
 * The tools of a server's list fanout can run, and at most one log line saying what it left
 * out, cut short or did not read.
 */
export function keptTools(
  server: string,
  listed: ListedTool[],
  cut?: ListingCut,
): { tools: McpTool[]; report?: string } {
  const b = MCP_LIST_BOUNDS;
  const tools: McpTool[] = [];
  const leftOut = new LeftOut();
  let cutDescriptions = 0;
  let patternText = 0;
  let steps = 0;
  let stored = 2;
  for (const tool of listed) {
    const name = String(tool.name);
    if (tools.length >= b.tools) {
      leftOut.add(`past the ${b.tools} kept of a server`, name);
      continue;
    }
    if (name.length > b.nameChars) {
      leftOut.add(`with a name over ${b.nameChars} characters`, name);
      continue;
    }
    const schemaBytes = JSON.stringify(tool.inputSchema ?? {}).length;
    if (schemaBytes > b.schemaBytes) {
      leftOut.add(`with an inputSchema over ${b.schemaBytes} bytes`, name);
      continue;
    }
    // Checking patterns costs time in proportion to their text and steps: a server's list gets what
    // a configuration gets. A schema refused for its own size compiles nothing, so it spends none of it.
    const ownText = schemaPatterns(tool.inputSchema).reduce((n, p) => n + p.pattern.length, 0);
    const ownSteps = patternSteps(tool.inputSchema);
    const fits =
      ownSteps > MAX_SCHEMA_PROGRAM ||
      (patternText + ownText <= MAX_CONFIG_PATTERN_CHARS && steps + ownSteps <= MAX_CONFIG_PROGRAM);
    if (!fits) {
      leftOut.add(
        `past the ${MAX_CONFIG_PATTERN_CHARS} characters or ${MAX_CONFIG_PROGRAM} steps of patterns a server's schemas may hold`,
        name,
      );
      continue;
    }
    const [hazard] = schemaHazards(tool.inputSchema);
    if (hazard) {
      leftOut.add("whose inputSchema fanout cannot check safely", name, `inputSchema${hazard}`);
      continue;
    }
    patternText += ownText;
    steps += ownSteps;
    const kept = keptTool(tool);
    if (kept.description.length > b.descriptionChars) {
      kept.description = kept.description.slice(0, b.descriptionChars);
      cutDescriptions++;
    }
    stored += JSON.stringify(kept).length + 1;
    if (stored > b.storedBytes) {
      leftOut.add(`past the ${b.storedBytes} bytes a stored listing may take`, name);
      continue;
    }
    tools.push(kept);
  }
  const parts = leftOut.describe();
  if (cutDescriptions > 0) parts.push(`the descriptions of ${cutDescriptions} cut to ${b.descriptionChars} characters`);
  if (cut && "pages" in cut) parts.push(`pages after the first ${cut.pages} not read`);
  if (cut && "bytes" in cut) parts.push(`the pages after the first ${cut.bytes} bytes not read`);
  if (parts.length === 0) return { tools };
  const counted = leftOut.size > 0 ? `left out ${leftOut.size} of ${listed.length} tools: ` : "";
  return { tools, report: `MCP server '${server}': kept ${tools.length} tools; ${counted}${parts.join("; ")}.` };
}
