import { describe, expect, it } from "vitest";
import { hasSecretToken } from "../src/telegram";

describe("Telegram's secret token", () => {
  it("matches only the exact token", async () => {
    expect(await hasSecretToken("s3cret-token", "s3cret-token")).toBe(true);
    expect(await hasSecretToken("s3cret-tokeN", "s3cret-token")).toBe(false);
    expect(await hasSecretToken("s3cret", "s3cret-token")).toBe(false);
    expect(await hasSecretToken("s3cret-token-and-more", "s3cret-token")).toBe(false);
    expect(await hasSecretToken("", "s3cret-token")).toBe(false);
    expect(await hasSecretToken(null, "s3cret-token")).toBe(false);
  });

  it("never matches when the bot has no token configured", async () => {
    expect(await hasSecretToken("", "")).toBe(false);
  });
});
