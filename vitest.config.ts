import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { TEST_BINDINGS } from "./test/setup/bindings.ts";

// Two projects, one `npm test`: the worker in workerd, and the client package in Node against `wrangler dev`.
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
          include: ["test/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      "packages/*",
    ],
  },
});
