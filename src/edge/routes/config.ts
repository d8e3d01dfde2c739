/**
 * `GET` / `PUT` / `PATCH /v1/config` (docs/api.md#configuration). `PUT` replaces the whole
 * document (omitted keys take their defaults); `PATCH` is a JSON Merge Patch,
 * applied inside the TenantDO against the stored document so concurrent
 * patches never undo each other. Unknown keys are a 400 either way, secrets
 * are write-only, and both answer the new document as `GET` shows it.
 */
import { Hono } from "hono";
import type { AppEnv } from "../auth/app-env";
import { configPatchSchema, PATCH_MEDIA_TYPES, prototypeKeyPath, type ConfigPatch } from "../../core/config/patch";
import { checkConfig, issueLines } from "../../core/config-check/validate";
import { ApiError, badRequest } from "../../core/http/errors";
import { readJsonBody } from "../../core/http/json-body";
import { tenantConfig, tenantStub } from "../requests/context";
import { rememberConfig } from "../../core/objects/tenant-cache";
import type { WriteConfigResult } from "../../core/config-check/validate";

/** The largest configuration document accepted, whatever `max_body_bytes` says. */
const MAX_CONFIG_BYTES = 1_048_576;

const invalidConfig = (problems: string[]) =>
  badRequest("invalid_config", `Configuration rejected: ${problems.join("; ")}.`, { problems });

function requireMergePatch(contentType: string | undefined): void {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (PATCH_MEDIA_TYPES.includes(type)) return;
  throw new ApiError(
    415,
    "unsupported_media_type",
    `PATCH /v1/config takes a JSON Merge Patch: send it with Content-Type: application/merge-patch+json (or application/json), not ${type || "no Content-Type"}.`,
  );
}

function readPatch(body: unknown): ConfigPatch {
  const parsed = configPatchSchema.safeParse(body);
  if (!parsed.success) throw invalidConfig(issueLines(parsed.error));
  const prototypeKey = prototypeKeyPath(body);
  if (prototypeKey) throw invalidConfig([`${prototypeKey}: "__proto__" is not a configuration key; remove it`]);
  return body as ConfigPatch;
}

/** The stored document as `GET` shows it; this isolate's copy is it from now on (read-your-writes). */
const answer = (tenant: string, result: WriteConfigResult) => {
  // A stored secret whose destination changed: the text says which one to send again, and why.
  if (!result.ok && result.code === "secret_required") throw badRequest("secret_required", result.problems[0]!);
  if (!result.ok) throw invalidConfig(result.problems);
  rememberConfig(tenant, result.config, result.version);
  return { ...result.config, generated_secrets: result.generated_secrets };
};

export const configRoutes = new Hono<AppEnv>()
  .get("/config", async (c) => c.json(await tenantConfig(c)))
  .put("/config", async (c) => {
    const checked = checkConfig(await readJsonBody(c.req.raw, MAX_CONFIG_BYTES), c.env.ALLOW_PRIVATE_EGRESS === "true");
    if (!checked.ok) throw invalidConfig(checked.problems);
    // The RPC type mapping cannot carry the schema's `unknown` fields; the value itself is plain JSON.
    return c.json(answer(c.get("tenant"), (await tenantStub(c).putConfig(checked.config)) as WriteConfigResult));
  })
  .patch("/config", async (c) => {
    requireMergePatch(c.req.header("content-type"));
    const patch = readPatch(await readJsonBody(c.req.raw, MAX_CONFIG_BYTES));
    // The egress rule is the worker's setting: the object is told it rather than reading its own.
    const result = await tenantStub(c).patchConfig(patch, c.env.ALLOW_PRIVATE_EGRESS === "true");
    return c.json(answer(c.get("tenant"), result as WriteConfigResult));
  });
