/**
 * A subagent's transcript (docs/api.md#a-subagents-transcript): its conversation as people read it,
 * each model turn's text and tool calls with what the request took. Texts past
 * `TRANSCRIPT_CHARS` are cut; the model had them whole.
 */
import type { ChatMessage } from "./llm";
import { shownUsage, addUsage, type Usage } from "../usage/usage";

export const TRANSCRIPT_CHARS = 10_000;

export interface TranscriptEntry {
  role: string;
  content: string | null;
  content_truncated?: true;
  tool_calls?: { id: string; name: string; arguments: string }[];
  tool_call_id?: string;
  usage?: Usage;
  at: string;
}

export function transcriptEntry({
  message,
  at,
}: {
  message: ChatMessage & { usage?: Usage };
  at: number;
}): TranscriptEntry {
  const raw =
    typeof message.content === "string"
      ? message.content
      : message.content == null
        ? null
        : JSON.stringify(message.content);
  const cut = raw !== null && raw.length > TRANSCRIPT_CHARS;
  const calls = "tool_calls" in message && message.tool_calls?.length ? message.tool_calls : undefined;
  return {
    role: message.role,
    content: cut ? raw.slice(0, TRANSCRIPT_CHARS) : raw,
    ...(cut ? { content_truncated: true as const } : {}),
    ...(calls
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            name: "function" in c ? c.function.name : "",
            arguments: "function" in c ? c.function.arguments : "",
          })),
        }
      : {}),
    ...("tool_call_id" in message && message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
    ...(message.usage ? { usage: shownUsage(addUsage(message.usage)) } : {}),
    at: new Date(at).toISOString(),
  };
}
