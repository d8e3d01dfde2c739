import { describe, expect, it } from "vitest";
import { networkErrorText } from "../../src/core/http/network-error";

describe("networkErrorText", () => {
  it("names the place and both causes for the runtime's 'Network connection lost.'", () => {
    expect(networkErrorText(new Error("Network connection lost."), "http://127.0.0.1:8791/fanout?x=1")).toBe(
      "Network error: no connection to http://127.0.0.1:8791: refused (is anything listening there?) or dropped before an answer.",
    );
  });

  it("keeps any other message as it is", () => {
    expect(networkErrorText(new TypeError("fetch failed: bad header"), "https://bot.example/")).toBe(
      "Network error: fetch failed: bad header",
    );
    expect(networkErrorText("odd", "https://bot.example/")).toBe("Network error: odd");
  });
});
