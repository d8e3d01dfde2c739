// What globalSetup hands to tests (see fake-servers.ts).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    toolServer: string;
    /** `@modelcontextprotocol/server-everything` over Streamable HTTP (its `/mcp` URL). */
    everythingMcp: string;
  }
}
