/** Routes without authentication: they reveal no tenant data. */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { openApiDocument } from "../../core/api/openapi";
import { dashboardRoutes } from "../dashboard/routes";

export const publicRoutes = new Hono<AppEnv>()
  .route("/", dashboardRoutes)
  .get("/healthz", (c) => c.json({ status: "ok" }))
  .get("/openapi.json", (c) => c.json(openApiDocument()));
