/**
 * Wire schema of `GET /v1/telemetry` (docs/api.md#traces), for `/openapi.json`: what the tenant's
 * span exports came to.
 */
import { z } from "zod";

export const telemetryAnswer = z.object({
  exported: z.number().int().describe("Spans the tenant's OTLP endpoint accepted."),
  dropped: z
    .number()
    .int()
    .describe(
      "Spans given up: refused by the endpoint, failed after 3 retries, or dropped for room (10,000 wait at most).",
    ),
  last_error: z.string().optional().describe("The latest failure, redacted."),
  last_export_at: z.string().optional().describe("When spans were last accepted (ISO 8601)."),
});
export type TelemetryAnswer = z.infer<typeof telemetryAnswer>;
