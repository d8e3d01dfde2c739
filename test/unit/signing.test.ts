import { describe, expect, it } from "vitest";
import { secretKeyBytes, signatureHeaders } from "../../src/core/tools/signing";

const SECRET = "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz"; // base64 of "test-secret-for-tools"
const NOW = Date.parse("2026-11-01T10:00:00.123Z");

const fromB64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** Verifies like a Standard Webhooks receiver would, independently of the code under test. */
async function verify(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
  signature: string,
): Promise<boolean> {
  const [version, mac] = signature.split(",");
  if (version !== "v1" || mac === undefined) return false;
  const keyBytes = fromB64(secret.slice("whsec_".length));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", key, fromB64(mac), new TextEncoder().encode(`${id}.${timestamp}.${body}`));
}

describe("signatureHeaders", () => {
  it("sets webhook-id, webhook-timestamp in seconds and a v1 signature", async () => {
    const h = await signatureHeaders(SECRET, "echo-abc.1", '{"a":1}', NOW);
    expect(Object.keys(h)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(h["webhook-id"]).toBe("echo-abc.1");
    expect(h["webhook-timestamp"]).toBe(String(Math.floor(NOW / 1000)));
    expect(h["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("signs id.timestamp.body with the base64-decoded part of the whsec_ secret", async () => {
    const body = '{"tool_name":"echo","tool_args":{"q":"ü"},"job_id":"echo-abc","chat_id":"c","attempt":1}';
    const h = await signatureHeaders(SECRET, "echo-abc.1", body, NOW);
    expect(await verify(SECRET, h["webhook-id"], h["webhook-timestamp"], body, h["webhook-signature"])).toBe(true);
  });

  it("produces a signature that fails for another body, id, timestamp or secret", async () => {
    const h = await signatureHeaders(SECRET, "evt_1", "body", NOW);
    const sig = h["webhook-signature"];
    const ts = h["webhook-timestamp"];
    expect(await verify(SECRET, "evt_1", ts, "body!", sig)).toBe(false);
    expect(await verify(SECRET, "evt_2", ts, "body", sig)).toBe(false);
    expect(await verify(SECRET, "evt_1", String(Number(ts) + 1), "body", sig)).toBe(false);
    expect(await verify("whsec_b3RoZXItc2VjcmV0", "evt_1", ts, "body", sig)).toBe(false);
  });

  it("matches a known Standard Webhooks test vector", async () => {
    // From the Standard Webhooks reference libraries.
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    const h = await signatureHeaders(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", body, 1614265330 * 1000);
    expect(h["webhook-timestamp"]).toBe("1614265330");
    expect(h["webhook-signature"]).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});

describe("secretKeyBytes", () => {
  it("decodes the base64 part after whsec_", () => {
    expect(new TextDecoder().decode(secretKeyBytes(SECRET))).toBe("test-secret-for-tools");
  });

  it("uses a secret that is not base64 as raw bytes", () => {
    expect(new TextDecoder().decode(secretKeyBytes("whsec_not base64!"))).toBe("whsec_not base64!");
  });
});
