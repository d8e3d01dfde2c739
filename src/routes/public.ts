/** Routes without authentication: they reveal no tenant data. */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { openApiDocument } from "../api/openapi";

export const publicRoutes = new Hono<AppEnv>()
  .get("/", (c) =>
    c.json({
      name: "fanout",
      description: "Durable parallel tool calls and subagents for webhook-driven bots.",
      openapi: "/openapi.json",
      health: "/healthz",
    }),
  )
  .get("/healthz", (c) => c.json({ status: "ok" }))
  .get("/openapi.json", (c) => c.json(openApiDocument()));
