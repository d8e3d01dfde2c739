/**
 * The bench's own build of fanout (bench/queue-delay, whose queue sends are slower) wraps the worker
 * and must export every Durable Object class wrangler.toml binds, or `wrangler dev` refuses it and
 * `npm run bench` stops at its second scenario: it did, for the flow and budget objects, until this test.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

describe("the bench's queue-delay build", () => {
  it("exports every Durable Object class that wrangler.toml binds", () => {
    const bound = [...read("wrangler.toml").matchAll(/^class_name\s*=\s*"(\w+)"/gm)].map((m) => m[1]!);
    expect(bound.length).toBeGreaterThanOrEqual(5);
    const source = read("bench/queue-delay/index.ts");
    const exported = new Set(
      [...source.matchAll(/export\s+(?:class\s+(\w+)|\{([^}]*)\})/g)].flatMap((m) =>
        m[1] ? [m[1]] : m[2]!.split(",").map((n) => n.trim()),
      ),
    );
    expect(bound.filter((name) => !exported.has(name))).toEqual([]);
  });
});
