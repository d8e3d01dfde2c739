/**
 * What a bot (not a model) adds to a `/tool-calls` body to hand over a turn
 * (docs/api.md#tiered-execution-and-the-tool-calls-route): `wait: false` to be answered at once
 * and continue the turn on `batch.finished`, and `context`, anything it needs then (its
 * conversation so far, the assistant message), so it keeps no store of its own meanwhile.
 */
import { badRequest } from "../http/errors";
import { isObject } from "../util/json";

/** The most a `context` may hold, written as JSON (64 KiB). */
export const MAX_CONTEXT_BYTES = 65_536;

export interface TurnOptions {
  wait: boolean;
  /** `context` as JSON text, when given. */
  context?: string;
}

/** `wait` and `context` of a `/tool-calls` body, checked: a wrong one is a 400 that says what to send. */
export function turnOptions(body: unknown): TurnOptions {
  if (!isObject(body)) return { wait: true };
  const { wait, context } = body;
  if (wait !== undefined && typeof wait !== "boolean")
    throw badRequest(
      "invalid_wait",
      "`wait` is true (answer with the results, the default) or false (answer at once; the results come in batch.finished).",
    );
  if (context === undefined) return { wait: wait ?? true };
  const text = JSON.stringify(context);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONTEXT_BYTES)
    throw badRequest(
      "context_too_large",
      `\`context\` is ${bytes} bytes as JSON, and holds at most ${MAX_CONTEXT_BYTES} (64 KiB): keep in it what the turn needs to go on, or keep the rest in your own store and put its key here.`,
    );
  return { wait: wait ?? true, context: text };
}
