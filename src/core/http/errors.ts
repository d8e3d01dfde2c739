/**
 * The one error shape every non-2xx answer uses (docs/api.md#validation-order-and-errors):
 * `{"status":"error","error":{"code","message",…details}}`.
 *
 * Expected refusals are values of `ApiError`, thrown from pure validation and
 * turned into a response at the edge; anything else is a platform fault (503).
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorDetails = Record<string, string | number | boolean | null | string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): ErrorBody {
    return { status: "error", error: { code: this.code, message: this.message, ...this.details } };
  }
}

export interface ErrorBody {
  status: "error";
  error: { code: string; message: string; [detail: string]: unknown };
}

/** A serialisable form, so a Durable Object can hand an expected refusal back over RPC. */
export interface Refusal {
  ok: false;
  status: ContentfulStatusCode;
  code: string;
  message: string;
  details?: ErrorDetails;
}

export const refusal = (e: ApiError): Refusal => ({
  ok: false,
  status: e.status,
  code: e.code,
  message: e.message,
  details: e.details,
});

/**
 * A 503 from an object is the platform-failure answer of docs/architecture.md#platform-rules, so it says when
 * to retry like any other.
 */
export const fromRefusal = (r: Refusal): ApiError =>
  new ApiError(r.status, r.code, r.message, r.details ?? {}, r.status === 503 ? { "Retry-After": "1" } : {});

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(400, code, message, details);

export const unavailable = (message = "fanout is briefly unavailable; retry in a second. Started jobs keep running.") =>
  new ApiError(503, "unavailable", message, {}, { "Retry-After": "1" });

/**
 * A tenant's live streams are at `limits.max_streams` (docs/api.md#live-streams): the next ticket or upgrade
 * is refused.
 */
export const tooManyStreams = (open: number, max: number) =>
  new ApiError(
    429,
    "too_many_streams",
    `This tenant has ${open} live streams open (limits.max_streams is ${max}); close one before opening another.`,
    {
      open,
      limit: max,
    },
  );
