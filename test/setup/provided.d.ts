// What globalSetup hands to tests (see fake-servers.ts).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    toolServer: string;
  }
}
