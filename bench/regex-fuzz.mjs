#!/usr/bin/env node
/**
 * `node bench/regex-fuzz.mjs [runs]` (also the first drill of `npm run drill`): random schemas
 * built from the shapes that cost the most (fixed counts up to RE2's 1,000, nested counts, long
 * alternations, lookarounds, many patterns per schema in one `allOf`), each one the checks in
 * src/core/json-schema/schema-safety.ts accept then validated, as fanout validates a call's
 * arguments (RE2 under the work meter), against adversarial strings of 10,000 characters. Fails
 * when one validation takes more than 50 ms.
 */
import { build } from "esbuild";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUDGET_MS = 50;
const LENGTH = 10_000;

async function loadSchemaSafety() {
  const dir = mkdtempSync(join(tmpdir(), "schema-safety-"));
  const out = join(dir, "schema-safety.mjs");
  await build({
    entryPoints: [join(ROOT, "src/core/json-schema/schema-safety.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: out,
    logLevel: "silent",
  });
  const module = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  return module;
}

const atom = fc.constantFrom(
  "a",
  "b",
  "x",
  "y",
  "1",
  "\\d",
  "\\w",
  "\\s",
  "\\S",
  ".",
  "[ab]",
  "[^a]",
  "[xy]",
  "\\p{L}",
  "[a-z]",
  "@",
  "-",
);
const count = fc.oneof(
  fc.constantFrom("", "", "*", "+", "?", "{2,}", "{0,16}", "{1,3}"),
  fc.integer({ min: 1, max: 1000 }).map((n) => `{${n}}`),
);
const piece = fc.tuple(atom, count).map(([a, c]) => a + c);
const sequence = fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(""));
const group = fc
  .tuple(
    fc.array(sequence, { minLength: 1, maxLength: 12 }),
    fc.constantFrom("", "*", "+", "?", "{2}", "{30}"),
    fc.constantFrom("plain", "choice", "ahead", "behind"),
  )
  .map(([alts, c, kind]) =>
    kind === "choice"
      ? `(?:${alts.join("|")})${c}`
      : kind === "ahead"
        ? `(?=${alts[0]})`
        : kind === "behind"
          ? `(?<=${alts[0]})`
          : `(?:${alts[0]})${c}`,
  );
const pattern = fc
  .tuple(fc.boolean(), fc.array(fc.oneof(piece, group), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([start, parts, end]) => `${start ? "^" : ""}${parts.join("")}${end ? "$" : ""}`);
/** One string property whose patterns sit side by side in an `allOf`, as the red team's probe did. */
const schema = fc.array(pattern, { minLength: 1, maxLength: 50 }).map((patterns) => ({
  type: "object",
  properties: { q: { type: "string", allOf: patterns.map((p) => ({ pattern: p })) } },
}));

/** Long runs of the characters patterns are built from, each ended by something that fails. */
function adversarial() {
  const runs = ["a", "b", "x", "xy", "1", " ", "@", "-", "ab", "a1", "xa", "a@", "1-", "é", "a b"];
  return runs.flatMap((run) => {
    const body = run.repeat(Math.ceil(LENGTH / run.length)).slice(0, LENGTH - 1);
    return [`${body}!`, `${body}y`];
  });
}

export async function fuzzPatterns(runs = 3000) {
  const { schemaHazards, checkArguments } = await loadSchemaSafety();
  const strings = adversarial();
  let accepted = 0;
  let worst = { ms: 0, pattern: "" };
  fc.assert(
    fc.property(schema, (s) => {
      if (schemaHazards(s).length > 0) return true;
      accepted++;
      checkArguments(s, { q: "warm up" });
      for (const q of strings) {
        const start = performance.now();
        checkArguments(s, { q });
        const ms = performance.now() - start;
        if (ms > worst.ms)
          worst = {
            ms,
            pattern: s.properties.q.allOf
              .map((p) => p.pattern)
              .join(" & ")
              .slice(0, 200),
          };
      }
      return true;
    }),
    { numRuns: runs },
  );
  return {
    runs,
    accepted,
    worstMs: Math.round(worst.ms * 10) / 10,
    worstPattern: worst.pattern,
    ok: worst.ms <= BUDGET_MS,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await fuzzPatterns(Number(process.argv[2] ?? 3000));
  console.log(result);
  process.exit(result.ok ? 0 : 1);
}
