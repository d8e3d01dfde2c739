/** The tool helpers on their own; test/sdk-loops.test.ts hands their output to each real SDK. */
import { asSchema } from "ai";
import { describe, expect, it } from "vitest";
import { toAiSdkTools, toAnthropicTools, toGeminiTools, type ToolsAnswer } from "../src/index.js";

const answer: ToolsAnswer = {
  tools: [
    {
      type: "function",
      function: {
        name: "wait",
        description: "Wait.",
        parameters: { type: "object", properties: { seconds: { type: "number" } } },
      },
    },
    { type: "function", function: { name: "lookup", description: "Look up.", parameters: {} } },
  ],
  prompts: {},
};

describe("tool helpers", () => {
  it("give every SDK an object schema, even for a definition that leaves `type` out", () => {
    expect(toAnthropicTools(answer)[1]).toEqual({
      name: "lookup",
      description: "Look up.",
      input_schema: { type: "object" },
    });
    expect(toGeminiTools(answer.tools)).toEqual([
      {
        functionDeclarations: [
          { name: "wait", description: "Wait.", parametersJsonSchema: answer.tools[0]!.function.parameters },
          { name: "lookup", description: "Look up.", parametersJsonSchema: { type: "object" } },
        ],
      },
    ]);
  });

  it("leave the definitions as they were when the AI SDK edits what it reads", async () => {
    const schema = asSchema(toAiSdkTools(answer).wait!.inputSchema);
    const read = (await schema.jsonSchema) as Record<string, unknown>;
    expect(read.additionalProperties).toBe(false);
    expect(answer.tools[0]!.function.parameters).not.toHaveProperty("additionalProperties");
    expect(await schema.validate!({ seconds: "soon" })).toEqual({ success: true, value: { seconds: "soon" } });
  });

  it("say what they expected when handed something else", () => {
    expect(() => toAnthropicTools({ status: "success", jobs: [] } as never)).toThrow(/Expected what tools\(\) answers/);
  });
});
