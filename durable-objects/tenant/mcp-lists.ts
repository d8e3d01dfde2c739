/**
 * The tenant's MCP tool lists (docs/api.md#mcp-servers): kept for 5 minutes. A list belongs to
 * the server definition it was fetched with (URL and header values): a changed definition is
 * listed again. When a refresh fails, the last list is served rather than failing every batch;
 * a server never listed is `unavailable`.
 *
 * A write of the configuration makes every list stale rather than listing at once, and a server
 * is listed at most once every 10 s, by whichever use needs it first: a listing of a megabyte
 * costs tens of milliseconds of the isolate's CPU, and one tenant rewriting its config (or its
 * server's URL) in a loop must not spend another tenant's time. Within those 10 s a stale list is
 * served; a definition never listed is `unavailable` until they are up.
 */
import type { McpListing, McpTool } from "../../src/core/tools/mcp";
import { listFailure, type McpEndpoint } from "../../src/core/tools/mcp-client";
import { redactDeep, redactor } from "../../src/core/util/redact";

export const MCP_LIST_TTL_MS = 5 * 60_000;
/** The least time between two listings of one server. */
export const MCP_LIST_INTERVAL_MS = 10_000;

type Row = {
  fingerprint: string;
  tools: string;
  fetched_at: number;
};

export class McpLists {
  /** One fetch per server at a time: concurrent batches share it. */
  readonly #pending = new Map<string, Promise<McpListing>>();
  /** When each server's last listing began (in memory: an evicted object may list once more). */
  readonly #listedAt = new Map<string, number>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly list: (
      endpoint: McpEndpoint,
      allowPrivateEgress: boolean,
    ) => Promise<{ tools: McpTool[]; report?: string }>,
    /** ALLOW_PRIVATE_EGRESS, read at each listing: the egress rules apply to every send. */
    private readonly allowPrivateEgress: () => boolean,
    /**
     * The tenant's stored secrets: a listing, its failure and its log line are redacted of them like any
     * remote's answer.
     */
    private readonly secrets: () => Promise<string[]>,
  ) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS mcp_lists (server TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, tools TEXT NOT NULL, fetched_at INTEGER NOT NULL)`,
    );
  }

  /** `fingerprint`: the server's definition (URL and headers), so the list follows the config it came from. */
  async get(endpoint: McpEndpoint, fingerprint: string, now: number): Promise<McpListing> {
    const row = this.#row(endpoint.name, fingerprint);
    if (row && now - row.fetched_at < MCP_LIST_TTL_MS) return this.#listing(row);
    let pending = this.#pending.get(endpoint.name);
    const wait = (this.#listedAt.get(endpoint.name) ?? -Infinity) + MCP_LIST_INTERVAL_MS - now;
    if (!pending && wait > 0) {
      if (row) return this.#listing(row);
      return {
        unavailable: `MCP server '${endpoint.name}' was listed less than ${MCP_LIST_INTERVAL_MS / 1000} s ago; it is listed again in ${Math.ceil(wait / 1000)} s`,
      };
    }
    if (!pending) {
      this.#listedAt.set(endpoint.name, now);
      pending = this.#fetch(endpoint, fingerprint).finally(() => this.#pending.delete(endpoint.name));
      this.#pending.set(endpoint.name, pending);
    }
    const fetched = await pending;
    if ("tools" in fetched) return fetched;
    const kept = this.#row(endpoint.name, fingerprint);
    return kept ? this.#listing(kept) : fetched;
  }

  /** After a write of the configuration: every list is listed again when next used (kept until then). */
  stale(): void {
    this.sql.exec(`UPDATE mcp_lists SET fetched_at = 0`);
  }

  /** Drops the lists of servers the configuration no longer has. */
  keepOnly(servers: string[]): void {
    const known = this.sql.exec<{ server: string }>(`SELECT server FROM mcp_lists`).toArray();
    for (const { server } of known)
      if (!servers.includes(server)) this.sql.exec(`DELETE FROM mcp_lists WHERE server = ?`, server);
  }

  async #fetch(endpoint: McpEndpoint, fingerprint: string): Promise<McpListing> {
    const clean = redactor(await this.secrets());
    try {
      const listed = await this.list(endpoint, this.allowPrivateEgress());
      if (listed.report) console.warn(clean(listed.report));
      const tools = redactDeep(listed.tools, clean);
      const fetched_at = Date.now();
      this.sql.exec(
        `INSERT OR REPLACE INTO mcp_lists (server, fingerprint, tools, fetched_at) VALUES (?, ?, ?, ?)`,
        endpoint.name,
        fingerprint,
        JSON.stringify(tools),
        fetched_at,
      );
      return { tools, fetched_at };
    } catch (e) {
      const failure = clean(listFailure(endpoint.name, e));
      console.warn(failure);
      return { unavailable: failure };
    }
  }

  #row(server: string, fingerprint: string): Row | undefined {
    return this.sql
      .exec<Row>(
        `SELECT fingerprint, tools, fetched_at FROM mcp_lists WHERE server = ? AND fingerprint = ?`,
        server,
        fingerprint,
      )
      .toArray()[0];
  }

  #listing(row: Row): McpListing {
    return { tools: JSON.parse(row.tools) as McpTool[], fetched_at: row.fetched_at };
  }
}
