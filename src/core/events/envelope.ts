/**
 * Events (docs/api.md#events-and-webhooks): what a chat announces, in one envelope for webhooks and
 * the live stream. `seq` increases per chat, so a receiver can order events
 * that arrive out of order (a retried one never holds back the next). Their types are one list,
 * `EVENT_TYPES` in src/core/api/event-types.ts, beside the wire schema built from it.
 */
import type { AnyEventType } from "../api/event-types";

export type { AnyEventType, EventType, JobEventType, LiveEventType } from "../api/event-types";

/** Where an event comes from: in every event's `data`. */
export interface EventSource {
  tenant: string;
  chat_id: string;
  parent_chat_id: string | null;
  root_chat_id: string;
}

export interface EventEnvelope {
  id: string;
  type: AnyEventType;
  timestamp: string;
  data: EventSource & { seq: number } & Record<string, unknown>;
}

export function eventEnvelope(
  id: string,
  type: AnyEventType,
  now: number,
  source: EventSource,
  seq: number,
  data: Record<string, unknown>,
): EventEnvelope {
  return { id, type, timestamp: new Date(now).toISOString(), data: { ...source, seq, ...data } };
}

/**
 * An event is one storage row and one webhook body: past this size its result
 * texts are left out (the jobs keep them: await them or read the job). Well
 * under SQLite's 2 MB row, even for text that JSON escaping doubles.
 */
export const EVENT_MAX_CHARS = 256 * 1024;
const RESULT_KEPT_CHARS = 1000;

type ResultsLike = { jobs: Record<string, unknown>[] } & Record<string, unknown>;

const firstChars = (text: string) => [...text].slice(0, RESULT_KEPT_CHARS).join("");

/**
 * The same event without its result texts, marked `truncated`. Error texts are cut to their first
 * 1,000 characters: a tool's error is as long as it makes it, and 32 of them share one row.
 */
export function withoutResults(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data, truncated: true };
  if (typeof data.result === "string" && data.result.length > RESULT_KEPT_CHARS) {
    out.result = firstChars(data.result);
    out.result_truncated = true;
  }
  if (typeof data.error === "string" && data.error.length > RESULT_KEPT_CHARS) out.error = firstChars(data.error);
  const results = data.results as ResultsLike | undefined;
  if (results && Array.isArray(results.jobs)) {
    out.results = {
      ...results,
      jobs: results.jobs.map(({ result, ...job }) => {
        const kept =
          typeof job.error === "string" && job.error.length > RESULT_KEPT_CHARS
            ? { ...job, error: firstChars(job.error) }
            : job;
        return result === undefined ? kept : { ...kept, result_truncated: true };
      }),
    };
  }
  // A `/tool-calls` batch's calls: a refused call's text and a `parallel` call's payload are cut the
  // same way (a call that is one job has no text here: its job's is above).
  if (Array.isArray(data.tool_calls)) out.tool_calls = (data.tool_calls as Record<string, unknown>[]).map(cutCall);
  return out;
}

function cutCall(call: Record<string, unknown>): Record<string, unknown> {
  const kept = { ...call };
  if (typeof call.content === "string" && call.content.length > RESULT_KEPT_CHARS) {
    kept.content = firstChars(call.content);
    kept.content_truncated = true;
  }
  const error = call.error as { message?: unknown } | undefined;
  if (typeof error?.message === "string" && error.message.length > RESULT_KEPT_CHARS)
    kept.error = { ...error, message: firstChars(error.message) };
  return kept;
}
