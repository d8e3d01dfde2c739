import { cloudflareTest } from "@cloudflare/vitest-plugin";
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
          exclude: ["test/dashboard/**"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      // The dashboard's page modules are plain browser JavaScript: tested in Node, as the page loads them.
      { test: { name: "dashboard", include: ["test/dashboard/**/*.test.ts"], environment: "node" } },
      "packages/*",
      "examples/*",
      "scripts",
    ],
  },
});
