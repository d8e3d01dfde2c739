/** `GET /v1/telemetry` (docs/api.md#traces): what the tenant's span exports came to. */
import { Hono } from "hono";
import type { TelemetryAnswer } from "../../core/api/telemetry";
import type { AppEnv } from "../auth/app-env";
import { tenantStub } from "../requests/context";

export const telemetryRoutes = new Hono<AppEnv>().get("/telemetry", async (c) =>
  c.json((await tenantStub(c).telemetryStatus()) satisfies TelemetryAnswer),
);
