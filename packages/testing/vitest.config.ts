import { defineConfig } from "vitest/config";

// The kit in Node, as a bot's suite runs it: test/setup.ts builds the worker bundle it ships first.
export default defineConfig({
  test: {
    name: "testing",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
