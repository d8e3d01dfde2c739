import { defineConfig } from "vitest/config";

// Our scripts in Node: the shared fakes, and `npm start` run as a person runs it (test/).
export default defineConfig({
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
