/**
 * A refusal or failure from fanout, carrying its stable `code` (docs/api.md#validation-order-and-errors) so
 * callers can branch on it, and the message written for a person or a model.
 */
import type { ErrorBody } from "./types.js";

export class FanoutError extends Error {
  override readonly name = "FanoutError";

  constructor(
    /** The HTTP status; 0 when no answer arrived (network failure). */
    readonly status: number,
    /** `invalid_tool_calls`, `unauthorized`, `unavailable`, `network_error`, … */
    readonly code: string,
    message: string,
    /** The error's other fields (`server`, `agent`, …). */
    readonly details: Record<string, unknown> = {},
    /** From `Retry-After`, in milliseconds, when fanout asked to try again later. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Worth repeating unchanged: fanout was unavailable (503), or nothing answered. */
  get retryable(): boolean {
    return this.status === 503 || this.status === 0;
  }

  static async from(response: Response, body?: unknown): Promise<FanoutError> {
    const retryAfter = Number(response.headers.get("retry-after"));
    const retryAfterMs =
      Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has("retry-after")
        ? retryAfter * 1000
        : undefined;
    const error = (body as ErrorBody | undefined)?.error;
    if (error && typeof error.code === "string") {
      const { code, message, ...details } = error;
      return new FanoutError(response.status, code, message, details, retryAfterMs);
    }
    const text = typeof body === "string" ? body : response.statusText;
    return new FanoutError(
      response.status,
      "http_error",
      `HTTP ${response.status}: ${text.slice(0, 500)}`,
      {},
      retryAfterMs,
    );
  }
}
