/**
 * Tool definitions handed to a model in its SDK's own shapes, beside the
 * result helpers of `./sdk-results.ts`. `GET /v1/tools` answers OpenAI's form,
 * which openai takes as it is; these turn it into Anthropic's `tools`, the AI
 * SDK's tool set and Gemini's `functionDeclarations`, with nothing to cast.
 * A call the model then makes goes to fanout, which checks its arguments and
 * answers an error the model can act on: no helper validates on the bot's side.
 */
import type { ToolDefinition, ToolsAnswer } from "./types.js";

/** What the helpers read: `tools()`'s answer, or its `tools` list (filtered, say). */
export type ToolsSource = ToolsAnswer | readonly ToolDefinition[];

/** A JSON Schema of a call's arguments; an object schema, as every SDK wants. */
export type ObjectSchema = { type: "object"; [keyword: string]: unknown };

/** Anthropic Messages' custom tool (`Anthropic.Tool`). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectSchema;
}

/**
 * A Standard Schema (standardschema.dev) that carries its JSON Schema, which
 * the AI SDK takes as a tool's `inputSchema`. It accepts any input as it is:
 * fanout validates the call when it runs and answers a readable error.
 */
export interface StandardJsonSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "fanout";
    readonly validate: (value: unknown) => { value: Record<string, unknown> };
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** An AI SDK tool without `execute`: the bot runs the calls through fanout, not in-process. */
export interface AiSdkTool {
  description: string;
  inputSchema: StandardJsonSchema;
}

/** Gemini's function declarations (`@google/genai` `FunctionDeclaration`), given as JSON Schema. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: ObjectSchema;
}

/** One Gemini `Tool` holding every declaration: `config.tools` takes the array. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** `tools` for `messages.create`. */
export function toAnthropicTools(source: ToolsSource): AnthropicTool[] {
  return definitions(source).map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: objectSchema(d.parameters),
  }));
}

/** A tool set for `generateText` / `streamText`, keyed by name. */
export function toAiSdkTools(source: ToolsSource): Record<string, AiSdkTool> {
  return Object.fromEntries(
    definitions(source).map((d) => [
      d.name,
      { description: d.description, inputSchema: standardSchema(objectSchema(d.parameters)) },
    ]),
  );
}

/** `config.tools` for `models.generateContent`: one tool with every function declaration. */
export function toGeminiTools(source: ToolsSource): GeminiTool[] {
  return [
    {
      functionDeclarations: definitions(source).map((d) => ({
        name: d.name,
        description: d.description,
        parametersJsonSchema: objectSchema(d.parameters),
      })),
    },
  ];
}

function definitions(source: ToolsSource): ToolDefinition["function"][] {
  const list = Array.isArray(source) ? (source as readonly ToolDefinition[]) : (source as ToolsAnswer).tools;
  if (!Array.isArray(list)) throw new TypeError("Expected what tools() answers ({tools, prompts}) or its tools list.");
  return list.map((d) => d.function);
}

/**
 * Every call's arguments are an object, so a definition written without a
 * `type` (a tenant tool's `{}`, say) is one; Anthropic refuses a schema that
 * does not say so.
 */
const objectSchema = (parameters: Record<string, unknown>): ObjectSchema => ({ ...parameters, type: "object" });

function standardSchema(schema: ObjectSchema): StandardJsonSchema {
  // A copy per read: the AI SDK edits the schema it is given (it adds `additionalProperties`).
  const copy = () => structuredClone(schema) as Record<string, unknown>;
  return {
    "~standard": {
      version: 1,
      vendor: "fanout",
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: copy, output: copy },
    },
  };
}
