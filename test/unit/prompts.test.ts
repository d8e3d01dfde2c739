/**
 * The `parallel` prompt contract must not drift from what the endpoint
 * accepts: every JSON example in it parses, and every argument is described.
 */
import { describe, expect, it } from "vitest";
import parallelPrompt from "../../prompts/parallel.md";
import { configSchema } from "../../src/config/schema";
import { parseParallel } from "../../src/parallel/parse-request";
import * as api from "../../src/api/schemas";

const config = configSchema.parse({ tools: [{ name: "search", url: "https://tools.example/search" }] });
const jsonBlocks = (md: string) => [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe("prompts/parallel.md", () => {
  it("has examples, and each one is a call the endpoint accepts", () => {
    const blocks = jsonBlocks(parallelPrompt);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) expect(() => parseParallel(JSON.parse(block), config, "default"), block).not.toThrow();
  });

  it("documents every argument of the schema", () => {
    for (const arg of Object.keys(api.parallelArgs.shape)) expect(parallelPrompt).toContain(`\`${arg}\``);
  });
});
