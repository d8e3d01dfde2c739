/**
 * Answers in the representation the caller asked for: JSON by default, or
 * with `Accept: text/plain` the text a model should see (docs/api.md#the-parallel-route): the compact
 * JSON, or `Error: <message>`, with the same status.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiError } from "./errors";

export const wantsText = (c: Context) => {
  const accept = c.req.header("accept") ?? "";
  return accept.includes("text/plain") && !accept.includes("application/json");
};

export function respond(c: Context, payload: unknown, status: ContentfulStatusCode = 200): Response {
  if (wantsText(c)) return c.text(JSON.stringify(payload), status);
  return c.json(payload, status);
}

export function respondError(c: Context, e: ApiError): Response {
  for (const [name, value] of Object.entries(e.headers)) c.header(name, value);
  if (wantsText(c)) return c.text(`Error: ${e.message}`, e.status);
  return c.json(e.toBody(), e.status);
}
