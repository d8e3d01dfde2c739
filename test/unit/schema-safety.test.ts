import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import {
  MAX_EXPANDED_SUBSCHEMAS,
  MAX_PATTERN_TEXT_CHARS,
  overlongString,
  runnableSchema,
  schemaHazards,
  schemaPatterns,
} from "../../src/core/json-schema/schema-safety";

/** `$defs.a0 = {anyOf: [{$ref: a1}, {$ref: a1}]}`, `depth` deep: a few KB that validate in 2^depth steps. */
function fanOut(depth: number) {
  const $defs: Record<string, unknown> = { [`a${depth}`]: { type: "string" } };
  for (let i = 0; i < depth; i++)
    $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
  return { type: "object", properties: { q: { $ref: "#/$defs/a0" } }, $defs };
}

describe("schemaPatterns", () => {
  it("finds patterns wherever a validator runs them, with their JSON pointers", () => {
    const schema = {
      type: "object",
      properties: { "a/b": { type: "string", pattern: "^x$" }, list: { type: "array", items: { pattern: "^i$" } } },
      patternProperties: { "^p_": { type: "string" } },
      anyOf: [{ pattern: "^any$" }],
      $defs: { d: { not: { pattern: "^not$" } } },
      additionalProperties: { propertyNames: { pattern: "^k$" } },
    };
    expect(
      schemaPatterns(schema)
        .map((p) => [p.pointer, p.pattern])
        .sort(),
    ).toEqual(
      [
        ["/$defs/d/not/pattern", "^not$"],
        ["/additionalProperties/propertyNames/pattern", "^k$"],
        ["/anyOf/0/pattern", "^any$"],
        ["/patternProperties/^p_", "^p_"],
        ["/properties/a~1b/pattern", "^x$"],
        ["/properties/list/items/pattern", "^i$"],
      ].sort(),
    );
  });

  it("finds a pattern under any member a $ref can reach, not only known keywords", () => {
    const schema = { type: "object", properties: { q: { $ref: "#/x" } }, x: { type: "string", pattern: "^(a)\\1$" } };
    expect(schemaPatterns(schema)).toEqual([{ pointer: "/x/pattern", pattern: "^(a)\\1$" }]);
    expect(schemaHazards(schema)).toEqual([
      expect.stringMatching(/^\/x\/pattern "\^\(a\)\\\\1\$" cannot run in linear time/),
    ]);
  });

  it("treats const, enum, default and examples as data", () => {
    const schema = {
      type: "object",
      properties: { pattern: { type: "string" } },
      const: { pattern: "(a)\\1" },
      enum: [{ pattern: "(a)\\1" }],
      default: { pattern: "(a)\\1" },
      examples: [{ pattern: "(a)\\1" }],
    };
    expect(schemaPatterns(schema)).toEqual([]);
    expect(schemaHazards(schema)).toEqual([]);
  });
});

describe("schemaHazards", () => {
  it("refuses references that fan out past the bound, before anything validates against them", () => {
    expect(schemaHazards(fanOut(20))).toEqual([
      `/ expands to more than ${MAX_EXPANDED_SUBSCHEMAS} subschemas through its $refs; reference each definition from fewer places`,
    ]);
    expect(schemaHazards(fanOut(6))).toEqual([]);
  });

  it("accepts a recursive schema: the recursion is bounded by the arguments", () => {
    const tree = {
      $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node",
    };
    expect(schemaHazards(tree)).toEqual([]);
  });

  it("refuses references it cannot follow", () => {
    expect(schemaHazards({ properties: { a: { $ref: "https://schemas.example/a.json" } } })).toEqual([
      '/properties/a/$ref "https://schemas.example/a.json" is not a local reference (#/…) to a part of this schema',
    ]);
    expect(schemaHazards({ properties: { a: { $ref: "#/$defs/missing" } } })).toHaveLength(1);
    expect(
      schemaHazards({ properties: { a: { $ref: "#/$defs/x~1y" } }, $defs: { "x/y": { type: "string" } } }),
    ).toEqual([]);
  });

  it("refuses more pattern text than it checks", () => {
    const many = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: "string", pattern: `^${"a".repeat(1000)}$` }]),
    );
    expect(schemaHazards({ properties: many })).toEqual([
      `/ has ${20 * 1002} characters of patterns; at most ${MAX_PATTERN_TEXT_CHARS} are checked`,
    ]);
  });
});

describe("runnableSchema", () => {
  it("keeps the formats whose checks have a fixed shape and leaves the others to annotate", () => {
    const schema = {
      properties: { a: { format: "url" }, b: { format: "uri" }, c: { format: "date" }, d: { format: "email" } },
    };
    const { schema: run, checksStrings } = runnableSchema(schema);
    expect(run).toEqual({ properties: { a: {}, b: {}, c: { format: "date" }, d: { format: "email" } } });
    expect(checksStrings).toBe(true);
    expect(schema.properties.a).toEqual({ format: "url" });
    // `url` backtracks exponentially in the validator: the runnable schema never asks for it.
    const slow = `http://${"a".repeat(40)}!`;
    expect(new Validator(run as never, "2020-12", false).validate({ a: slow }).valid).toBe(true);
  });

  it("says whether strings are checked against a pattern or a format", () => {
    expect(runnableSchema({ type: "object" }).checksStrings).toBe(false);
    expect(runnableSchema({ properties: { a: { format: "url" } } }).checksStrings).toBe(false);
    expect(runnableSchema({ properties: { a: { pattern: "^a$" } } }).checksStrings).toBe(true);
    expect(runnableSchema({ patternProperties: { "^a": {} } }).checksStrings).toBe(true);
  });
});

describe("overlongString", () => {
  it("finds the first string or property name past the limit, by pointer", () => {
    expect(overlongString({ a: "x".repeat(10), b: ["ok", "y".repeat(11)] }, 10)).toBe("/b/1");
    expect(overlongString({ ["k".repeat(30)]: 1 }, 10)).toBe(`/${"k".repeat(20)}…`);
    expect(overlongString("z".repeat(11), 10)).toBe("/");
    expect(overlongString({ a: "x".repeat(10), n: 12345678901 }, 10)).toBeUndefined();
  });
});
