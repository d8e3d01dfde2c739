/**
 * A traced turn's model request as its `chat` span (docs/api.md#traces): built from the ask (its span
 * id, when it was sent), the runner's answer (its times, the reply's model, finish reason and usage,
 * or the error) and the config (provider and model), inside the step that takes the reply.
 */
import { profile as profileOf } from "../../../src/core/agents/profiles";
import type { AskAnswer } from "../../../src/core/jobs/messages";
import type { ModelAsk } from "../../../src/core/runner/model-ask";
import { chatSpan, providerName, type ModelRequestRecord } from "../../../src/core/telemetry/spans";
import type { SpanOutbox } from "../events/span-outbox";
import type { LoopHost } from "./loop-host";
import type { ModelAsks } from "./model-asks";

type SpanHost = Pick<LoopHost, "config" | "identity" | "turns"> & { asks: ModelAsks; spans: SpanOutbox };

export async function traceModelRequest(host: SpanHost, ask: ModelAsk, answer: AskAnswer): Promise<void> {
  const trace = host.asks.turnTrace();
  if (!trace?.x || !ask.span) return;
  const config = await host.config();
  const llm = config.llm;
  const prof = profileOf(config, host.identity().profile);
  const reply = "reply" in answer ? answer.reply : undefined;
  // The conversation it was asked with: the reply is not in it yet.
  const content = trace.c
    ? {
        input: JSON.stringify(host.turns.messages()),
        ...(reply
          ? { output: JSON.stringify({ role: "assistant", content: reply.content, tool_calls: reply.tool_calls }) }
          : {}),
      }
    : {};
  const request: ModelRequestRecord = {
    span_id: ask.span,
    started_at: answer.started_at ?? ask.sent_at,
    ended_at: answer.ended_at ?? Date.now(),
    provider: llm ? providerName(llm.base_url) : "unknown",
    request_model: prof.model ?? llm?.model ?? "unknown",
    ...(reply?.model ? { response_model: reply.model } : {}),
    ...(reply?.finish_reason ? { finish_reasons: [reply.finish_reason] } : {}),
    ...(reply ? { usage: reply.usage } : {}),
    ...("error" in answer ? { error: answer.error } : {}),
    ...content,
  };
  host.spans.send([chatSpan(request, trace)]);
}
