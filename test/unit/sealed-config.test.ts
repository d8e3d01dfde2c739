import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/core/config/schema";
import { encryptSecret, importConfigKey } from "../../src/core/config/secrets";
import { maskSecrets, openSecrets, sealSecrets, secretOutcome } from "../../durable-objects/tenant/sealed-config";

const key = async () => (await importConfigKey(btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))))!;
const doc = (input: unknown) => configSchema.parse(input);
const tool = (name: string, secret?: string) => ({
  name,
  url: `https://tools.example/${name}`,
  ...(secret ? { secret } : {}),
});

describe("secretOutcome: whether a stored secret is kept", () => {
  const signing = { path: "tools.search.secret", generated: true, destination: "https://tools.example/search" };
  const apiKey = { path: "llm.api_key", generated: false, destination: "https://llm.example/v1" };
  const webhookSecret = { path: "webhook.secret", generated: true };
  const stored = (destination?: string) => ({ sealed: "enc:v1:a:b", destination });

  it('keeps the stored secret for "***" while it goes to the same origin', () => {
    expect(secretOutcome(signing, "***", stored("https://tools.example/other-path"))).toEqual({
      kind: "keep",
      sealed: "enc:v1:a:b",
    });
    expect(secretOutcome(apiKey, "***", stored("https://LLM.example:443/v2"))).toEqual({
      kind: "keep",
      sealed: "enc:v1:a:b",
    });
  });

  it('refuses "***" when the destination origin changed: host, scheme or port', () => {
    expect(secretOutcome(apiKey, "***", stored("https://old.example/v1"))).toEqual({
      kind: "refuse",
      code: "secret_required",
      message:
        "llm.api_key must be sent again: its destination changed from https://old.example to https://llm.example.",
    });
    expect(secretOutcome(signing, "***", stored("https://tools.example:8443/search"))).toMatchObject({
      code: "secret_required",
    });
    expect(secretOutcome(signing, "***", stored("http://tools.example/search"))).toMatchObject({
      code: "secret_required",
    });
  });

  it("keeps the webhook's signing secret wherever the webhook points: it is never sent", () => {
    expect(secretOutcome(webhookSecret, "***", stored())).toEqual({ kind: "keep", sealed: "enc:v1:a:b" });
  });

  it('refuses "***" when nothing is stored, naming the field by its path', () => {
    expect(secretOutcome(apiKey, "***", undefined)).toEqual({
      kind: "refuse",
      code: "invalid_config",
      message: 'llm.api_key is "***" but no secret is stored for it; send the secret itself.',
    });
  });

  it("seals a value that was sent, whatever is stored and wherever it goes", () => {
    expect(secretOutcome(signing, "whsec_bmV3", stored("https://elsewhere.example"))).toEqual({
      kind: "seal",
      plain: "whsec_bmV3",
    });
  });

  it("generates an omitted signing secret and leaves other omitted secrets out", () => {
    expect(secretOutcome(signing, undefined, stored("https://tools.example"))).toEqual({ kind: "generate" });
    expect(secretOutcome(apiKey, undefined, stored("https://llm.example"))).toEqual({ kind: "none" });
  });
});

describe("sealSecrets", () => {
  it("reports generated secrets by name, not by position", async () => {
    const { generated } = await sealSecrets(
      doc({ tools: [tool("search", "whsec_c2VudA=="), tool("fetch")], webhook: { url: "https://bot.example/fanout" } }),
      doc({}),
      await key(),
    );
    expect(Object.keys(generated).sort()).toEqual(["tools.fetch.secret", "webhook.secret"]);
    expect(generated["tools.fetch.secret"]).toMatch(/^whsec_/);
  });

  it('keeps each "***" secret with its own tool and header after a reorder', async () => {
    const k = await key();
    const stored = doc({
      tools: [tool("a", await encryptSecret(k, "secret-a")), tool("b", await encryptSecret(k, "secret-b"))],
      mcp_servers: [
        {
          name: "docs",
          url: "https://mcp.example/mcp",
          headers: { Authorization: await encryptSecret(k, "Bearer d") },
        },
      ],
    });
    const next = maskSecrets(stored);
    next.tools.reverse();
    next.mcp_servers[0]!.headers = { authorization: "***" }; // header names match whatever their case
    const { sealed, generated } = await sealSecrets(next, stored, k);
    const opened = await openSecrets(sealed, k);
    expect(opened.tools.map((t) => [t.name, t.secret])).toEqual([
      ["b", "secret-b"],
      ["a", "secret-a"],
    ]);
    expect(opened.mcp_servers[0]!.headers).toEqual({ authorization: "Bearer d" });
    expect(generated).toEqual({});
  });

  it('names the field of a "***" with nothing stored', async () => {
    await expect(sealSecrets(doc({ tools: [tool("t", "***")] }), doc({}), await key())).rejects.toThrow(
      /^tools\.t\.secret is "\*\*\*"/,
    );
    const header = doc({
      mcp_servers: [{ name: "docs", url: "https://mcp.example/mcp", headers: { "X-Key": "***" } }],
    });
    await expect(sealSecrets(header, doc({}), await key())).rejects.toThrow(/^mcp_servers\.docs\.headers\.X-Key is/);
  });
});
