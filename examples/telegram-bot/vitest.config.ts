import { defineConfig } from "vitest/config";

// Two projects in Node: "telegram-bot (e2e)", the bot end to end on @fanout/testing (test/harness.ts;
// test/setup.ts builds the kit's bundle from this checkout); "telegram-bot (local)", `npm run bot`
// itself, which starts everything on its own (test/local/), so it has no global setup.
export default defineConfig({
  test: {
    name: "telegram-bot",
    projects: [
      {
        test: {
          name: "e2e",
          include: ["test/*.test.ts"],
          globalSetup: ["./test/setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "local",
          include: ["test/local/*.test.ts"],
          testTimeout: 360_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
