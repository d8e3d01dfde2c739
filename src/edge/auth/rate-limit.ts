/**
 * Requests per API key (docs/operations.md#fair-share), with Cloudflare's Rate Limiting binding:
 * red team, round 3: 600 small batches from one tenant raised another tenant's `/parallel` from
 * 30–100 ms to 2–4 s. The limit is the binding's (`[[ratelimits]]` in wrangler.toml, default 1,000
 * per 10 s); the binding counts per Cloudflare location and says only yes or no, so `Retry-After`
 * is its period. Streams opened with a ticket count under their tenant.
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../core/http/errors";
import type { AppEnv } from "./app-env";

/** The binding's period in wrangler.toml: the longest a refused key waits. */
const PERIOD_SECONDS = 10;

export const rateLimited = () =>
  new ApiError(
    429,
    "rate_limited",
    `Too many requests with this API key; retry after ${PERIOD_SECONDS} s. The operator sets the limit (docs/operations.md#fair-share).`,
    {},
    { "Retry-After": String(PERIOD_SECONDS) },
  );

export const limitRequests = createMiddleware<AppEnv>(async (c, next) => {
  const { success } = await c.env.API_RATE_LIMIT.limit({ key: c.get("apiKey") });
  if (!success) throw rateLimited();
  await next();
});
