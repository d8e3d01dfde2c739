/** `GET /v1/usage` (docs/api.md#spending-limits): the tenant's spending this period and by day, from its spend object. */
import { Hono } from "hono";
import { spendName } from "../../core/objects/names";
import type { AppEnv } from "../auth/app-env";
import { tenantConfig } from "../requests/context";

export const usageRoutes = new Hono<AppEnv>().get("/usage", async (c) => {
  const config = await tenantConfig(c);
  const spend = c.env.SPEND.getByName(spendName(c.get("tenant")));
  return c.json(await spend.usage(config.limits.spend ?? null));
});
