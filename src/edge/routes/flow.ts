/**
 * `GET /v1/flow` (docs/api.md#flow-control): what each flow rule holds back now. One request per
 * flow shard of the tenant, at most four at a time (docs/architecture.md#platform-rules): each
 * answers the lines it holds, and the rules' figures are summed from them.
 */
import { Hono } from "hono";
import type { FlowAnswer } from "../../core/api/flow";
import type { AppEnv } from "../auth/app-env";
import { FLOW_SHARDS, ruleFigures, type LineFigures } from "../../core/flow/shard";
import { flowName } from "../../core/objects/names";
import { tenantConfig } from "../requests/context";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../../core/util/limited";

export const flowRoutes = new Hono<AppEnv>().get("/flow", async (c) => {
  const config = await tenantConfig(c);
  const tenant = c.get("tenant");
  const lines: LineFigures[] = [];
  if (config.flow.length > 0) {
    const shards = Array.from({ length: FLOW_SHARDS }, (_, i) => i);
    await forEachLimited(
      shards,
      MAX_OPEN_CONNECTIONS,
      async (i) => void lines.push(...(await c.env.FLOW.getByName(flowName(tenant, i)).figures())),
    );
  }
  const rules: FlowAnswer["rules"] = config.flow.map((rule) => {
    const f = ruleFigures(rule, lines);
    return {
      name: rule.name,
      running: f.running,
      queued: f.queued,
      ...(rule.rate
        ? { rate: { limit: rule.rate.limit, period_seconds: rule.rate.period_seconds, available: f.available! } }
        : {}),
      keys: f.keys,
    };
  });
  return c.json({ rules } satisfies FlowAnswer);
});
