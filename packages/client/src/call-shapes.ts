/**
 * The tool-call shapes fanout reads (docs/api.md#arguments-and-call-shapes), written out so that what a
 * model SDK hands a bot type-checks as it is: OpenAI's `message.tool_calls`
 * (possibly undefined, custom tool calls among them), Anthropic's `tool_use`
 * blocks, the AI SDK's `toolCalls`, Gemini's `functionCall` parts. The wire
 * schema in `./openapi.ts` describes only the plainest shape, and the SDKs'
 * own types are wider than any one of them: fanout itself decides what a call
 * means, and answers a call it cannot run with an error entry.
 */

type Args = Record<string, unknown>;

/** One tool call, in any shape fanout reads; each carries its own id where its SDK gives one. */
export type ToolCallInput =
  /** Agent Zero's `{tool_name, tool_args}` (the `parallel` tool's own items). */
  | { tool_name: string; tool_args?: Args; tool_call_id?: string }
  | { tool: string; args?: Args; tool_call_id?: string }
  /** OpenAI chat completions: a function tool call. */
  | { id: string; type?: "function"; function: { name: string; arguments: string } }
  /** OpenAI chat completions: a custom tool call (fanout's tools are functions: it answers an error entry). */
  | { id: string; type: "custom"; custom: { name: string; input: string } }
  /** `{name, arguments}` (object or JSON text), and `{type:"function", name, parameters}`. */
  | { name: string; arguments?: string | Args; id?: string }
  | { type: "function"; name: string; parameters?: Args }
  /** Anthropic's `tool_use` content block. */
  | { type: "tool_use"; id: string; name: string; input: unknown }
  /** The AI SDK's tool call (`generateText(…).toolCalls`, a `tool-call` part). */
  | { type?: "tool-call"; toolCallId: string; toolName: string; input?: unknown; args?: unknown }
  /** Gemini's `functionCall` part. */
  | { functionCall: GeminiFunctionCall }
  | { function_call: GeminiFunctionCall };

interface GeminiFunctionCall {
  name?: string;
  args?: Args;
  id?: string;
}

/** What a model message's tool calls may be: a list, or none at all (the SDKs type them optional). */
export type ToolCallList = readonly ToolCallInput[] | null | undefined;
