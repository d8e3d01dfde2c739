/**
 * `/v1` authentication: Hono's bearer-auth with a `verifyToken` that looks the
 * key up in the parsed API_KEYS table and records the tenant. A missing or
 * malformed API_KEYS/CONFIG_KEY answers 503 `misconfigured` on every call,
 * rather than letting anyone in or blaming the caller.
 */
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../core/http/errors";
import type { AppEnv } from "./app-env";
import { keyForToken, parseApiKeys, type KeyTable } from "./api-keys";
import { importConfigKey } from "../../core/config/secrets";
import { tenantName } from "../../core/objects/names";
import { ticketTenant } from "../../core/auth/tickets";

const UNAUTHORIZED = () =>
  Response.json(
    { status: "error", error: { code: "unauthorized", message: "Missing or invalid API key." } },
    { status: 401, headers: { "www-authenticate": 'Bearer realm="fanout"' } },
  );

/** The only routes a ticket opens: the live streams. */
const STREAM_PATH = /^\/v1\/(events|chats\/[^/]+\/events)$/;

const BAD_TICKET = () =>
  Response.json(
    {
      status: "error",
      error: {
        code: "unauthorized",
        message: "The ticket is invalid, used or expired; get a new one with POST /v1/ws-tickets.",
      },
    },
    { status: 401 },
  );

/** Parsed once per isolate per secret value: digests are not recomputed on every request. */
let cached: { raw: string | undefined; configKey: string | undefined; table: KeyTable } | undefined;

async function keyTable(env: Env): Promise<KeyTable> {
  if (cached && cached.raw === env.API_KEYS && cached.configKey === env.CONFIG_KEY) return cached.table;
  let table = await parseApiKeys(env.API_KEYS);
  if (table.ok && !(await importConfigKey(env.CONFIG_KEY))) {
    table = { ok: false, reason: "CONFIG_KEY is missing or is not 32 base64-encoded bytes" };
  }
  cached = { raw: env.API_KEYS, configKey: env.CONFIG_KEY, table };
  return table;
}

/** Built once: the table it checks against is the isolate's parsed copy of the secrets. */
const bearer = bearerAuth<AppEnv>({
  realm: "fanout",
  verifyToken: async (token, ctx) => {
    const table = await keyTable(ctx.env);
    const key = table.ok ? await keyForToken(table.entries, token) : undefined;
    if (key) {
      ctx.set("tenant", key.tenant);
      ctx.set("apiKey", key.id);
    }
    return key !== undefined;
  },
  noAuthenticationHeader: { message: UNAUTHORIZED },
  invalidAuthenticationHeader: { message: UNAUTHORIZED },
  invalidToken: { message: UNAUTHORIZED },
});

export const requireTenant: MiddlewareHandler<AppEnv> = createMiddleware<AppEnv>(async (c, next) => {
  const table = await keyTable(c.env);
  if (!table.ok) {
    throw new ApiError(
      503,
      "misconfigured",
      `fanout is misconfigured: ${table.reason}. The operator must fix the Worker secrets.`,
    );
  }
  const ticket = c.req.query("ticket");
  if (ticket !== undefined) {
    // A ticket opens a live stream and nothing else; every other call sends its key in a header.
    const tenant = ticketTenant(ticket);
    const upgrade = c.req.header("upgrade")?.toLowerCase() === "websocket";
    const stream = c.req.method === "GET" && STREAM_PATH.test(c.req.path);
    const scope =
      upgrade && stream && tenant ? await c.env.TENANT.getByName(tenantName(tenant)).redeemTicket(ticket) : undefined;
    if (!scope) return BAD_TICKET();
    c.set("tenant", tenant!);
    c.set("apiKey", `${tenant}:ticket`);
    c.set("ticket", scope);
    return next();
  }
  return bearer(c, next);
});
