import { describe, expect, it } from "vitest";
import { fanoutClient } from "../src/fanout";

/** A service binding as the runtime hands it over: something with a fetch. */
function binding() {
  const requests: Request[] = [];
  return {
    requests,
    fetch: async (request: Request) => {
      requests.push(request);
      return Response.json({ tools: [], prompts: {} });
    },
  };
}

describe("how the bot reaches fanout", () => {
  it("goes over the FANOUT binding, with the bot's key, when no FANOUT_URL is set", async () => {
    const FANOUT = binding();
    await fanoutClient({ FANOUT, FANOUT_API_KEY: "k1" }).tools();
    expect(FANOUT.requests).toHaveLength(1);
    expect(new URL(FANOUT.requests[0]!.url).pathname).toBe("/v1/tools");
    expect(FANOUT.requests[0]!.headers.get("authorization")).toBe("Bearer k1");
  });

  it("uses FANOUT_URL instead of the binding when it is set", async () => {
    const FANOUT = binding();
    // Nothing listens on port 9: the call fails, and never touches the binding.
    await expect(
      fanoutClient({ FANOUT, FANOUT_URL: "http://127.0.0.1:9", FANOUT_API_KEY: "k1" }).tools(),
    ).rejects.toThrow();
    expect(FANOUT.requests).toHaveLength(0);
  });

  it("says what to configure when it has neither", () => {
    expect(() => fanoutClient({ FANOUT_API_KEY: "k1" })).toThrow(/FANOUT service in wrangler\.toml, or set FANOUT_URL/);
  });
});
