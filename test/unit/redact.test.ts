import { describe, expect, it } from "vitest";
import { redactedAttempt } from "../../src/tools/mcp-client";
import { redact } from "../../src/util/redact";

describe("redact", () => {
  it("takes every occurrence of each secret out of a remote's text", () => {
    expect(redact("auth: Bearer sk-abcdef123 and again sk-abcdef123", ["sk-abcdef123"])).toBe("auth: Bearer *** and again ***");
    expect(redact("token 4242:ABCDEFGH in /bot4242:ABCDEFGH/sendMessage", [undefined, "4242:ABCDEFGH"])).toBe("token *** in /bot***/sendMessage");
  });

  it("leaves secrets too short to be real alone, so ordinary words survive", () => {
    expect(redact("the key is ok", ["ok", ""])).toBe("the key is ok");
  });
});

describe("an MCP attempt's texts", () => {
  it("never carry the server's configured header values, in a result or an error", () => {
    const secrets = ["Bearer mcp-canary-secret"];
    expect(redactedAttempt({ kind: "done", state: "success", result: "you sent Bearer mcp-canary-secret" }, secrets)).toEqual({
      kind: "done",
      state: "success",
      result: "you sent ***",
    });
    expect(redactedAttempt({ kind: "failed", failure: { kind: "network" }, error: "echo: Bearer mcp-canary-secret" }, secrets)).toMatchObject({
      error: "echo: ***",
    });
  });
});
