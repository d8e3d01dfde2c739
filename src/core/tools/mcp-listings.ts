/**
 * Gathers MCP tool lists from the TenantDO before admission (docs/architecture.md#platform-rules: every
 * await happens before the admission transaction). One RPC per server, so
 * each server that has to be listed is listed in an invocation of its own.
 */
import type { McpListing, McpListings } from "./mcp";

export interface McpListingSource {
  mcpListing(server: string): Promise<McpListing>;
}

export async function loadMcpListings(tenant: McpListingSource, servers: string[]): Promise<McpListings> {
  const listings = await Promise.all(servers.map((s) => tenant.mcpListing(s)));
  return Object.fromEntries(servers.map((s, i) => [s, listings[i]!]));
}
