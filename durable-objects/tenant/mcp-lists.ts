/**
 * The tenant's MCP tool lists (docs/api.md#mcp-servers): kept for 5 minutes, refreshed on
 * `PUT /v1/config`. A list belongs to the server definition it was fetched
 * with (URL and sealed headers): a changed definition is listed again. When
 * a refresh fails, the last list is served rather than failing every batch;
 * a server never listed is `unavailable`.
 */
import type { McpListing, McpTool } from "../../src/tools/mcp";
import { listFailure, type McpEndpoint } from "../../src/tools/mcp-client";

export const MCP_LIST_TTL_MS = 5 * 60_000;

type Row = {
  fingerprint: string;
  tools: string;
  fetched_at: number;
};

export class McpLists {
  /** One fetch per server at a time: concurrent batches share it. */
  readonly #pending = new Map<string, Promise<McpListing>>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly list: (endpoint: McpEndpoint, allowPrivateEgress: boolean) => Promise<McpTool[]>,
    /** ALLOW_PRIVATE_EGRESS, read at each listing: the egress rules apply to every send. */
    private readonly allowPrivateEgress: () => boolean,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS mcp_lists (server TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, tools TEXT NOT NULL, fetched_at INTEGER NOT NULL)`);
  }

  /** `fingerprint`: the stored (sealed) definition, so the list follows the config it came from. */
  async get(endpoint: McpEndpoint, fingerprint: string, now: number, refresh = false): Promise<McpListing> {
    const row = this.#row(endpoint.name, fingerprint);
    if (row && !refresh && now - row.fetched_at < MCP_LIST_TTL_MS) return this.#listing(row);
    let pending = this.#pending.get(endpoint.name);
    if (!pending) {
      pending = this.#fetch(endpoint, fingerprint).finally(() => this.#pending.delete(endpoint.name));
      this.#pending.set(endpoint.name, pending);
    }
    const fetched = await pending;
    if ("tools" in fetched) return fetched;
    const kept = this.#row(endpoint.name, fingerprint);
    return kept ? this.#listing(kept) : fetched;
  }

  /** Drops the lists of servers the configuration no longer has. */
  keepOnly(servers: string[]): void {
    const known = this.sql.exec<{ server: string }>(`SELECT server FROM mcp_lists`).toArray();
    for (const { server } of known) if (!servers.includes(server)) this.sql.exec(`DELETE FROM mcp_lists WHERE server = ?`, server);
  }

  async #fetch(endpoint: McpEndpoint, fingerprint: string): Promise<McpListing> {
    try {
      const tools = await this.list(endpoint, this.allowPrivateEgress());
      const fetched_at = Date.now();
      this.sql.exec(
        `INSERT OR REPLACE INTO mcp_lists (server, fingerprint, tools, fetched_at) VALUES (?, ?, ?, ?)`,
        endpoint.name, fingerprint, JSON.stringify(tools), fetched_at,
      );
      return { tools, fetched_at };
    } catch (e) {
      console.warn(listFailure(endpoint.name, e));
      return { unavailable: listFailure(endpoint.name, e) };
    }
  }

  #row(server: string, fingerprint: string): Row | undefined {
    return this.sql
      .exec<Row>(`SELECT fingerprint, tools, fetched_at FROM mcp_lists WHERE server = ? AND fingerprint = ?`, server, fingerprint)
      .toArray()[0];
  }

  #listing(row: Row): McpListing {
    return { tools: JSON.parse(row.tools) as McpTool[], fetched_at: row.fetched_at };
  }
}
