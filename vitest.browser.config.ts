import { defineConfig } from "vitest/config";

// Browser tests run in Node: they start `wrangler dev` and drive Debian's Chromium with playwright-core.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.e2e.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
