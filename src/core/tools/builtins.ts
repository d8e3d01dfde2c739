/**
 * Built-in tools every chat has (docs/api.md#built-in-tools). Their argument schemas are zod, so
 * the JSON Schema a model sees and the validation fanout applies are one object.
 */
import { z } from "zod";
import { MAX_SECONDS } from "../config/bounds";

export const waitArgs = z.looseObject({
  seconds: z.number().positive().max(MAX_SECONDS).describe("How long to wait, in seconds (at most 30 days)."),
});

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

export const httpRequestArgs = z.looseObject({
  url: z.string().url().describe("Absolute URL; its origin must be in builtins.http_request.allowed_origins."),
  method: z.enum(HTTP_METHODS).default("GET"),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.string().optional().describe("Request body, sent as is."),
});

export interface BuiltinTool {
  name: string;
  description: string;
  args: z.ZodType;
}

export const WAIT_TOOL: BuiltinTool = {
  name: "wait",
  description: "Wait the given number of seconds, then succeed. Holds no worker while waiting.",
  args: waitArgs,
};

export const HTTP_REQUEST_TOOL: BuiltinTool = {
  name: "http_request",
  description: "Make one HTTP request to an allowed origin and return the response body. Redirects are not followed.",
  args: httpRequestArgs,
};

/** Tools whose calls cannot be jobs inside `parallel` (Agent Zero's interactive tools). */
export const SEQUENTIAL_ONLY_TOOLS = new Set(["response", "document_query", "goal", "input", "input_remote"]);
export const PARALLEL_NAMES = new Set(["parallel", "parallel_tool_calls"]);
