/**
 * @fanout/client: a typed client for fanout, the durable parallel-jobs service
 * for webhook-driven LLM bots. See the repository's docs/client.md.
 */
export { Fanout, type AwaitOptions, type FanoutOptions } from "./client.js";
export type { CallOptions } from "./requests.js";
export type { ApprovalsOptions, PageOptions, ReadOptions, ToolCallsOptions } from "./method-options.js";
export { FanoutError } from "./errors.js";
export { UnknownOptionError } from "./known-options.js";
export { EventStream, type StreamMessage, type StreamOptions } from "./events.js";
export { readWebhook, verifyWebhook, type VerifyOptions } from "./webhook.js";
export {
  toAiSdkToolResults,
  toAnthropicToolResults,
  toOpenAIToolMessages,
  type AiSdkToolResult,
  type AnthropicToolResult,
  type OpenAIToolMessage,
  type ResultsSource,
} from "./sdk-results.js";
export {
  toAiSdkTools,
  toAnthropicTools,
  toGeminiTools,
  type AiSdkTool,
  type AnthropicTool,
  type GeminiFunctionDeclaration,
  type GeminiTool,
  type ObjectSchema,
  type StandardJsonSchema,
  type ToolsSource,
} from "./sdk-tools.js";
export type { ToolCallInput, ToolCallList } from "./call-shapes.js";
export { JOB_STATES } from "./job-states.js";
export type * from "./types.js";
