/**
 * Stored secrets stay bound to the origin they were stored for (docs/api.md#secrets): a key that may change the
 * configuration cannot point a URL elsewhere and have fanout send the stored secret there, by `PUT`
 * with `"***"` or by a `PATCH` that leaves the secret out. Refused whole, nothing stored.
 */
import { env, reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, configure, json, toolServer } from "../helpers";

afterEach(() => reset());

const put = (body: unknown) => api("/v1/config", { method: "PUT", body });
const patch = (body: unknown) =>
  api("/v1/config", { method: "PATCH", body, headers: { "content-type": "application/merge-patch+json" } });
const shown = async () => json(await api("/v1/config"));
const tenant = () => env.TENANT.getByName("tenant/acme");

const EVIL = "https://evil.example";
const WEBHOOK_SECRET = "whsec_c2VjcmV0LWJvdW5kLXRvLW5vdGhpbmctYXQtYWxs";

/** Every secret-bearing field, each bound to a URL of the test's tool server. */
async function storeEverySecret() {
  await configure({
    tools: [{ name: "echo", url: `${toolServer()}/echo`, secret: "whsec_c2VjcmV0LWZvci1lY2hv" }],
    mcp_servers: [
      { name: "docs", url: `${toolServer()}/mcp/bound-docs`, headers: { Authorization: "Bearer docs-token" } },
    ],
    llm: { base_url: `${toolServer()}/llm/v1`, model: "m", api_key: "sk-bound" },
    telegram: { bot_token: "123:bound-token", api_base_url: `${toolServer()}/telegram` },
    webhook: { url: `${toolServer()}/status/204`, secret: WEBHOOK_SECRET },
  });
  return shown();
}

const origin = () => new URL(toolServer()).origin;
const refusal = (field: string) => ({
  status: "error",
  error: {
    code: "secret_required",
    message: `${field} must be sent again: its destination changed from ${origin()} to ${EVIL}.`,
  },
});

/**
 * For each field: the GET document with its destination moved (secrets all "***"), and the PATCH that moves
 * it leaving the secret out.
 */
const MOVES: [field: string, moved: (doc: any) => unknown, patch: unknown][] = [
  ["llm.api_key", (d) => ({ ...d, llm: { ...d.llm, base_url: `${EVIL}/v1` } }), { llm: { base_url: `${EVIL}/v1` } }],
  [
    "telegram.bot_token",
    (d) => ({ ...d, telegram: { ...d.telegram, api_base_url: EVIL } }),
    { telegram: { api_base_url: EVIL } },
  ],
  [
    "tools.echo.secret",
    (d) => ({ ...d, tools: [{ ...d.tools[0], url: `${EVIL}/echo` }] }),
    { tools: [{ name: "echo", url: `${EVIL}/echo` }] },
  ],
  [
    "mcp_servers.docs.headers.Authorization",
    (d) => ({ ...d, mcp_servers: [{ ...d.mcp_servers[0], url: `${EVIL}/mcp` }] }),
    { mcp_servers: [{ name: "docs", url: `${EVIL}/mcp` }] },
  ],
];

describe("a stored secret whose destination changes", () => {
  it.for(MOVES)("%s: a PUT that sends it back as *** is refused whole, nothing stored", async ([field, moved]) => {
    const before = await storeEverySecret();
    const res = await put(moved(before));
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(refusal(field));
    expect(await shown()).toEqual(before);
  });

  it.for(MOVES)("%s: a PATCH that leaves it out is refused whole, nothing stored", async ([field, , body]) => {
    const before = await storeEverySecret();
    const res = await patch(body);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(refusal(field));
    expect(await shown()).toEqual(before);
  });

  it("a PATCH that says *** for it is refused just the same", async () => {
    await storeEverySecret();
    expect(await json(await patch({ llm: { base_url: `${EVIL}/v1`, api_key: "***" } }))).toEqual(
      refusal("llm.api_key"),
    );
  });

  it("is accepted once the secret is sent again, and then goes only to the new origin", async () => {
    await storeEverySecret();
    expect((await patch({ llm: { base_url: `${EVIL}/v1`, api_key: "sk-new" } })).status).toBe(200);
    expect(await tenant().llmTarget()).toMatchObject({ base_url: `${EVIL}/v1`, api_key: "sk-new" });
  });

  it("stays with a new path on the same origin", async () => {
    await storeEverySecret();
    expect(
      (
        await patch({
          llm: { base_url: `${toolServer()}/llm/v2` },
          telegram: { api_base_url: `${toolServer()}/telegram2` },
        })
      ).status,
    ).toBe(200);
    expect(await tenant().llmTarget()).toMatchObject({ api_key: "sk-bound" });
    expect(await tenant().telegramTarget()).toMatchObject({ bot_token: "123:bound-token" });
  });

  it("webhook.secret only signs and is never sent: it stays when the webhook moves", async () => {
    await storeEverySecret();
    expect((await patch({ webhook: { url: `${EVIL}/fanout` } })).status).toBe(200);
    expect(await tenant().webhookTarget()).toMatchObject({ url: `${EVIL}/fanout`, secret: WEBHOOK_SECRET });
  });
});
