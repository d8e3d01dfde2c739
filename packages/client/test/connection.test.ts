import { describe, expect, it } from "vitest";
import { serviceFrom } from "../src/cli/connection.js";
import { LOCAL_KEY, LOCAL_URL } from "../src/local.js";

describe("which service the CLI talks to", () => {
  it("is FANOUT_URL with FANOUT_API_KEY when both are set, and says nothing", () => {
    expect(serviceFrom({ FANOUT_URL: "https://f.example", FANOUT_API_KEY: "k" })).toEqual({
      url: "https://f.example",
      apiKey: "k",
    });
  });

  it("is the local `npm start` service with its dev key when FANOUT_URL is unset, said in one line", () => {
    const service = serviceFrom({});
    expect(service).toMatchObject({ url: "http://127.0.0.1:8787", apiKey: "fanout-local-dev-key" });
    expect(service).toMatchObject({ url: LOCAL_URL, apiKey: LOCAL_KEY });
    expect((service as { note: string }).note).toBe(
      "FANOUT_URL is not set: using the local service of `npm start` at http://127.0.0.1:8787 with its dev key",
    );
    expect(serviceFrom({ FANOUT_API_KEY: "prod" }) as { note: string; apiKey: string }).toMatchObject({
      apiKey: LOCAL_KEY,
      note: expect.stringMatching(/with its dev key \(FANOUT_API_KEY is used only with FANOUT_URL\)$/),
    });
  });

  it("asks for a key when FANOUT_URL comes without one", () => {
    expect(serviceFrom({ FANOUT_URL: "https://f.example" })).toEqual({
      missing: "set FANOUT_API_KEY to a key of the service at https://f.example (one from its API_KEYS secret)",
    });
  });
});
