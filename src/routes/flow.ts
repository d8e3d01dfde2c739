/**
 * `GET /v1/flow` (docs/api.md#flow-control): what each flow rule holds back now. One request per
 * rule, at most four at a time (docs/architecture.md#platform-rules): to the rule's one object when
 * it has no key, else to the index its keys report to.
 */
import { Hono } from "hono";
import type { FlowAnswer } from "../api/flow";
import type { AppEnv } from "../auth/app-env";
import { flowIndexName, flowName } from "../objects/names";
import { tenantConfig } from "../requests/context";
import { forEachLimited, MAX_OPEN_CONNECTIONS } from "../util/limited";

/** A rule without a key, from its one object: its figures, and that key when it is busy. */
async function unkeyed(env: Env, tenant: string, rule: string) {
  const f = await env.FLOW.getByName(flowName(tenant, rule, "")).figures();
  const running = f?.running ?? 0;
  const queued = f?.queued ?? 0;
  return { running, queued, available: f?.available ?? null, keys: running + queued > 0 ? [{ key: "", running, queued }] : [] };
}

export const flowRoutes = new Hono<AppEnv>().get("/flow", async (c) => {
  const config = await tenantConfig(c);
  const tenant = c.get("tenant");
  const rules: FlowAnswer["rules"] = [];
  await forEachLimited(config.flow.map((rule, i) => ({ rule, i })), MAX_OPEN_CONNECTIONS, async ({ rule, i }) => {
    const summary = rule.key ? await c.env.FLOW_INDEX.getByName(flowIndexName(tenant, rule.name)).summary(rule.rate) : await unkeyed(c.env, tenant, rule.name);
    // No busy key: the rate has its whole burst.
    const available = summary.available ?? (rule.rate ? (rule.rate.burst ?? rule.rate.limit) : 0);
    rules[i] = {
      name: rule.name,
      running: summary.running,
      queued: summary.queued,
      ...(rule.rate ? { rate: { limit: rule.rate.limit, period_seconds: rule.rate.period_seconds, available } } : {}),
      keys: summary.keys,
    };
  });
  return c.json({ rules } satisfies FlowAnswer);
});
