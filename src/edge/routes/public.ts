/** Routes without authentication: they reveal no tenant data. */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { openApiDocument } from "../../core/api/openapi";
import { dashboardRoutes } from "../dashboard/routes";

export const publicRoutes = new Hono<AppEnv>()
  .route("/", dashboardRoutes)
  // Names the service, so a client can tell fanout from another service on the same port.
  .get("/healthz", (c) => c.json({ status: "ok", service: "fanout" }))
  .get("/openapi.json", (c) => c.json(openApiDocument()));
