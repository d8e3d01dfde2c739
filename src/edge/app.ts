/**
 * The Hono application: public routes, then `/v1` behind CORS and bearer
 * authentication. Expected refusals (`ApiError`) become their JSON error body;
 * anything else is a platform fault and answers 503 `unavailable` with
 * `Retry-After: 1`, since started jobs live on in their Durable Objects.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./auth/app-env";
import { requireTenant } from "./auth/middleware";
import { limitRequests } from "./auth/rate-limit";
import { ApiError, unavailable } from "../core/http/errors";
import { respondError } from "../core/http/respond";
import { chatRoutes } from "./routes/chats";
import { configRoutes } from "./routes/config";
import { parallelRoutes } from "./routes/parallel";
import { rerunRoutes } from "./routes/rerun";
import { usageRoutes } from "./routes/usage";
import { publicRoutes } from "./routes/public";
import { toolCallsRoutes } from "./routes/tool-calls";
import { toolsRoutes } from "./routes/tools";
import { spawnRoutes } from "./routes/spawn";
import { eventRoutes } from "./routes/events";
import { deliveryRoutes } from "./routes/deliveries";
import { telemetryRoutes } from "./routes/telemetry";
import { flowRoutes } from "./routes/flow";
import { approvalRoutes } from "./routes/approvals";
import { mcpRoutes } from "./routes/mcp";

const browserCors = cors({
  origin: (origin, c) => {
    const allowed = (c.env.CORS_ORIGINS ?? "")
      .split(",")
      .map((o: string) => o.trim())
      .filter(Boolean);
    return allowed.includes(origin) ? origin : null;
  },
  allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key"],
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  maxAge: 600,
});

const v1 = new Hono<AppEnv>()
  .use(async (c, next) => {
    // Only a browser sends Origin: a bot's request skips the CORS work, and its answer still says it varies by Origin.
    if (c.req.header("origin") !== undefined) return browserCors(c, next);
    await next();
    c.header("Vary", "Origin", { append: true });
  })
  .use(requireTenant)
  .use(limitRequests)
  .route("/", configRoutes)
  .route("/", parallelRoutes)
  .route("/", rerunRoutes)
  .route("/", toolCallsRoutes)
  .route("/", toolsRoutes)
  .route("/", spawnRoutes)
  .route("/", chatRoutes)
  .route("/", eventRoutes)
  .route("/", deliveryRoutes)
  .route("/", flowRoutes)
  .route("/", telemetryRoutes)
  .route("/", usageRoutes)
  .route("/", approvalRoutes)
  .route("/", mcpRoutes);

export const app = new Hono<AppEnv>()
  .route("/", publicRoutes)
  .route("/v1", v1)
  .notFound((c) =>
    c.json(
      {
        status: "error",
        error: { code: "not_found", message: `No route ${c.req.method} ${c.req.path}; see /openapi.json.` },
      },
      404,
    ),
  )
  .onError((err, c) => {
    if (err instanceof ApiError) return respondError(c, err);
    if (err instanceof HTTPException) return err.getResponse(); // bearer-auth's ready-made 401
    console.error("unhandled error", err);
    return respondError(c, unavailable());
  });
