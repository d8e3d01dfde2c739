import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { TEST_BINDINGS } from "./test/setup/bindings.ts";

// One `npm test` for the worker (in workerd), the client package, the example bot and our scripts (in Node, against `wrangler dev`).
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: TEST_BINDINGS },
          }),
        ],
        test: {
          name: "worker",
          globalSetup: ["./test/setup/fake-servers.ts"],
          setupFiles: ["./test/isolate-setup.ts"],
          include: ["test/**/*.test.ts"],
          exclude: ["test/dashboard/**", "test/source/**", "test/mcp-e2e/**"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      // In Node: the dashboard's page modules (plain browser JavaScript, as the page loads them; the
      // job states it is served from the worker's list come from that list) and checks that read the source tree.
      {
        resolve: {
          alias: [
            {
              find: /^\/job-states\.js$/,
              replacement: fileURLToPath(new URL("./src/core/api/job-states.ts", import.meta.url)),
            },
          ],
        },
        test: {
          name: "node",
          include: ["test/dashboard/**/*.test.ts", "test/source/**/*.test.ts"],
          environment: "node",
        },
      },
      // In Node: MCP clients (the official SDK's, the conformance suite, an agent framework) against `wrangler dev`.
      {
        test: {
          name: "mcp",
          include: ["test/mcp-e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/mcp-e2e/setup.ts"],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          // One tenant's configuration is shared by every file: run them one at a time.
          fileParallelism: false,
        },
      },
      "packages/*",
      "examples/*",
      "scripts",
    ],
  },
});
