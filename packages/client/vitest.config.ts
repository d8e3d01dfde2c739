import { defineConfig } from "vitest/config";

// The client runs in Node here, against the whole service under `wrangler dev` (test/setup.ts).
export default defineConfig({
  test: {
    name: "client",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/setup.ts"],
    testTimeout: 60_000,
    // One tenant's configuration is shared by every file: run them one at a time.
    fileParallelism: false,
    hookTimeout: 120_000,
  },
});
