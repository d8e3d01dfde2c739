import { describe, expect, it } from "vitest";
import { mayStart, orderedRules, permittedTypes } from "../../src/core/agents/permission";

describe("permission.task", () => {
  it("allows everything when there are no rules", () => {
    expect(mayStart(undefined, "anything")).toBe(true);
    expect(mayStart([], "default")).toBe(true);
  });

  it("denies a type no rule matches", () => {
    expect(mayStart([["researcher", "allow"]], "writer")).toBe(false);
  });

  it("lets the last matching rule win, whatever the order of allow and deny", () => {
    expect(
      mayStart(
        [
          ["*", "deny"],
          ["researcher", "allow"],
        ],
        "researcher",
      ),
    ).toBe(true);
    expect(
      mayStart(
        [
          ["researcher", "allow"],
          ["*", "deny"],
        ],
        "researcher",
      ),
    ).toBe(false);
    expect(
      mayStart(
        [
          ["*", "allow"],
          ["boss", "deny"],
        ],
        "boss",
      ),
    ).toBe(false);
  });

  it("matches globs case-insensitively on the whole name", () => {
    expect(mayStart([["res*", "allow"]], "Researcher")).toBe(true);
    expect(mayStart([["res?", "allow"]], "research")).toBe(false);
    expect(mayStart([["search", "allow"]], "researcher")).toBe(false);
  });

  it("checks an omitted type as `default` like any other", () => {
    expect(mayStart([["*", "deny"]], "default")).toBe(false);
    expect(mayStart([["default", "allow"]], "default")).toBe(true);
  });

  it("reads the object form in key order", () => {
    expect(orderedRules({ "*": "deny", researcher: "allow" })).toEqual([
      ["*", "deny"],
      ["researcher", "allow"],
    ]);
    expect(mayStart({ "*": "deny", researcher: "allow" }, "researcher")).toBe(true);
  });

  it("lists the permitted types in profile order", () => {
    expect(
      permittedTypes(
        [
          ["*", "deny"],
          ["r*", "allow"],
        ],
        ["default", "boss", "researcher", "reader"],
      ),
    ).toEqual(["researcher", "reader"]);
  });
});
