/**
 * `GET` / `PUT /v1/config` (SPEC §2.1). `PUT` replaces the whole document;
 * omitted keys take their defaults, unknown keys are a 400, secrets are
 * write-only.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { configEgressProblems } from "../config/egress";
import { configSchema, crossFieldProblems } from "../config/schema";
import { badRequest } from "../http/errors";
import { readJsonBody } from "../http/json-body";
import { tenantConfig, tenantStub } from "./context";
import type { PutConfigResult } from "../../durable-objects/tenant/TenantDO";

/** The largest configuration document accepted, whatever `max_body_bytes` says. */
const MAX_CONFIG_BYTES = 1_048_576;

const invalidConfig = (problems: string[]) =>
  badRequest("invalid_config", `Configuration rejected: ${problems.join("; ")}.`, { problems });

export const configRoutes = new Hono<AppEnv>()
  .get("/config", async (c) => c.json(await tenantConfig(c)))
  .put("/config", async (c) => {
    const body = await readJsonBody(c.req.raw, MAX_CONFIG_BYTES);
    const parsed = configSchema.safeParse(body);
    if (!parsed.success) {
      throw invalidConfig(parsed.error.issues.map((i) => `${i.path.join(".") || "(document)"}: ${i.message}`));
    }
    const problems = [
      ...crossFieldProblems(parsed.data),
      ...configEgressProblems(parsed.data, c.env.ALLOW_PRIVATE_EGRESS === "true"),
    ];
    if (problems.length) throw invalidConfig(problems);
    // The RPC type mapping cannot carry the schema's `unknown` fields; the value itself is plain JSON.
    const result = (await tenantStub(c).putConfig(parsed.data)) as PutConfigResult;
    if (!result.ok) throw invalidConfig([result.message]);
    return c.json({ ...result.config, generated_secrets: result.generated_secrets });
  });

