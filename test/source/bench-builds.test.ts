/**
 * The bench's own builds of fanout (bench/queue-delay, whose queue sends are slower, and
 * bench/production-limiter, whose rate limit answers from the isolate) wrap the worker and must
 * export every Durable Object class wrangler.toml binds, or `wrangler dev` refuses them and
 * `npm run bench` stops at its second scenario: it did, for the flow and budget objects, until this
 * test. They must export the worker's entrypoints too: without `TraceExport` the bench's traced
 * tenant exported no span at all, silently, until the test checked them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The names a module exports by `export class X` or `export { X, Y as Z }`. */
const exportedNames = (source: string) =>
  new Set(
    [...source.matchAll(/export\s+(?:class\s+(\w+)|\{([^}]*)\})/g)].flatMap((m) =>
      m[1]
        ? [m[1]]
        : m[2]!.split(",").map(
            (n) =>
              n
                .trim()
                .split(/\s+as\s+/)
                .at(-1)!,
          ),
    ),
  );

describe.each(["bench/queue-delay/index.ts", "bench/production-limiter/index.ts"])("the bench's build %s", (entry) => {
  it("exports every Durable Object class that wrangler.toml binds", () => {
    const bound = [...read("wrangler.toml").matchAll(/^class_name\s*=\s*"(\w+)"/gm)].map((m) => m[1]!);
    expect(bound.length).toBeGreaterThanOrEqual(5);
    const exported = exportedNames(read(entry));
    expect(bound.filter((name) => !exported.has(name))).toEqual([]);
  });

  it("exports every class the worker's entry exports (its objects and entrypoints)", () => {
    const worker = exportedNames(read("src/index.ts"));
    expect(worker).toContain("TraceExport");
    expect(worker).toContain("DirectRunner");
    const exported = exportedNames(read(entry));
    expect([...worker].filter((name) => !exported.has(name))).toEqual([]);
  });
});
