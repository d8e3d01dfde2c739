/**
 * The `parallel` prompt contract must not drift from what the endpoint
 * accepts: every JSON example in it parses, and every argument is described.
 */
import { describe, expect, it } from "vitest";
import callSubordinatePrompt from "../../prompts/call_subordinate.md";
import orchestrationPrompt from "../../prompts/orchestration.md";
import parallelPrompt from "../../prompts/parallel.md";
import spawnTaskPrompt from "../../prompts/spawn_task.md";
import { callSubordinateArgs, spawnTaskArgs } from "../../src/core/subagents/schemas";
import { configSchema } from "../../src/core/config/schema";
import { parseParallel } from "../../src/core/jobs/parallel-command";
import * as api from "../../src/core/api/calls";

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

describe("the subordinate prompts", () => {
  const cases = [
    ["spawn_task", spawnTaskPrompt, spawnTaskArgs(["default"])],
    ["call_subordinate", callSubordinatePrompt, callSubordinateArgs(["default"])],
  ] as const;

  for (const [name, prompt, schema] of cases) {
    it(`${name}: documents every argument and every example validates`, () => {
      for (const arg of Object.keys(schema.shape)) expect(prompt, arg).toContain(`\`${arg}\``);
      const blocks = jsonBlocks(prompt);
      expect(blocks.length).toBeGreaterThanOrEqual(2);
      for (const block of blocks) expect(schema.safeParse(JSON.parse(block)).success, block).toBe(true);
    });
  }

  it("the orchestration prompt tells the model to batch independent calls and collect before answering", () => {
    expect(orchestrationPrompt).toMatch(/one message/);
    expect(orchestrationPrompt).toMatch(/Before your final answer/);
  });
});
