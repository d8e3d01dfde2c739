import { defineConfig } from "vitest/config";

// Our scripts in Node: the shared fakes, `npm start` run as a person runs it, and the README's commands (test/).
export default defineConfig({
  test: {
    name: "scripts",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/kit-bundle.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
