import { defineConfig } from "vitest/config";

// End to end in Node: fake Telegram and LLM servers, fanout and this bot, each under `wrangler dev` (test/setup.ts).
export default defineConfig({
  test: {
    name: "telegram-bot",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
