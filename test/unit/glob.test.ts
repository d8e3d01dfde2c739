import { describe, expect, it } from "vitest";
import { globMatch } from "../../src/tools/glob";

describe("globMatch", () => {
  it("matches a plain name exactly", () => {
    expect(globMatch("search", "search")).toBe(true);
    expect(globMatch("search", "searches")).toBe(false);
    expect(globMatch("search", "websearch")).toBe(false);
  });

  it("ignores case", () => {
    expect(globMatch("Search", "sEARCH")).toBe(true);
    expect(globMatch("DOCS__*", "docs__find")).toBe(true);
  });

  it("lets * match any run, including an empty one", () => {
    expect(globMatch("*", "anything")).toBe(true);
    expect(globMatch("*", "")).toBe(true);
    expect(globMatch("docs__*", "docs__")).toBe(true);
    expect(globMatch("docs__*", "docs__find_page")).toBe(true);
    expect(globMatch("*_read", "db_read")).toBe(true);
    expect(globMatch("a*b*c", "aXXbYYc")).toBe(true);
    expect(globMatch("a*b*c", "aXXcYYb")).toBe(false);
  });

  it("matches the whole name, never a part of it", () => {
    expect(globMatch("docs__*", "xdocs__find")).toBe(false);
    expect(globMatch("*find", "docs__finder")).toBe(false);
  });

  it("lets ? match exactly one character", () => {
    expect(globMatch("a?c", "abc")).toBe(true);
    expect(globMatch("a?c", "ac")).toBe(false);
    expect(globMatch("a?c", "abbc")).toBe(false);
    expect(globMatch("???", "xyz")).toBe(true);
  });

  it("treats regular-expression characters literally", () => {
    expect(globMatch("a.c", "abc")).toBe(false);
    expect(globMatch("a.c", "a.c")).toBe(true);
    expect(globMatch("a+", "aaa")).toBe(false);
    expect(globMatch("a+", "a+")).toBe(true);
    expect(globMatch("[ab]", "a")).toBe(false);
    expect(globMatch("[ab]", "[ab]")).toBe(true);
    expect(globMatch("(x|y)", "x")).toBe(false);
    expect(globMatch("^x$", "^x$")).toBe(true);
    expect(globMatch("a\\d", "a1")).toBe(false);
  });

  it("matches names with a newline in them as a whole", () => {
    expect(globMatch("a*", "a\nb")).toBe(true);
    expect(globMatch("a", "a\nb")).toBe(false);
  });
});
