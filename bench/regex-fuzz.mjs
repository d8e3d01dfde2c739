#!/usr/bin/env node
/**
 * `node bench/regex-fuzz.mjs [runs]` (also the first drill of `npm run drill`): random patterns
 * built from the shapes that backtrack (nested and adjacent repetitions, bounded counts, choices,
 * negated and property classes, lookarounds), each one the shape check in
 * src/json-schema/regex-shape.ts accepts then timed in V8 against adversarial strings of 10,000
 * characters. Fails when an accepted pattern takes more than 50 ms on any of them.
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

async function loadShapeCheck() {
  const dir = mkdtempSync(join(tmpdir(), "regex-shape-"));
  const out = join(dir, "regex-shape.mjs");
  await build({ entryPoints: [join(ROOT, "src/json-schema/regex-shape.ts")], bundle: true, format: "esm", platform: "node", outfile: out, logLevel: "silent" });
  const module = await import(pathToFileURL(out).href);
  rmSync(dir, { recursive: true, force: true });
  return module.backtrackingReason;
}

const atom = fc.constantFrom("a", "b", "x", "1", "\\d", "\\w", "\\s", "\\S", ".", "[ab]", "[^a]", "[^\\p{L}]", "\\p{L}", "[a-z]", "@", "-");
const count = fc.constantFrom("", "", "*", "+", "?", "{2,}", "{0,16}", "{1,3}", "{3}");
const piece = fc.tuple(atom, count).map(([a, c]) => a + c);
const sequence = fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(""));
const group = fc
  .tuple(sequence, sequence, fc.constantFrom("", "*", "+", "?", "{2}"), fc.constantFrom("plain", "choice", "ahead", "behind"))
  .map(([a, b, c, kind]) =>
    kind === "choice" ? `(?:${a}|${b})${c}` : kind === "ahead" ? `(?=${a})` : kind === "behind" ? `(?<=${a})` : `(?:${a})${c}`,
  );
const pattern = fc
  .tuple(fc.boolean(), fc.array(fc.oneof(piece, group), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([start, parts, end]) => `${start ? "^" : ""}${parts.join("")}${end ? "$" : ""}`);

/** Long runs of the characters patterns are built from, each ended by something that fails. */
function adversarial() {
  const runs = ["a", "b", "x", "1", " ", "@", "-", "ab", "a1", "xa", "a@", "1-", "é", "a b"];
  return runs.flatMap((run) => {
    const body = run.repeat(Math.ceil(LENGTH / run.length)).slice(0, LENGTH - 1);
    return [`${body}!`, `${body}\n`];
  });
}

export async function fuzzPatterns(runs = 3000) {
  const backtrackingReason = await loadShapeCheck();
  const strings = adversarial();
  let accepted = 0;
  let worst = { ms: 0, pattern: "" };
  fc.assert(
    fc.property(pattern, (source) => {
      if (backtrackingReason(source) !== undefined) return true;
      accepted++;
      const regex = new RegExp(source, "u");
      regex.test("warm up");
      for (const s of strings) {
        const start = performance.now();
        regex.test(s);
        const ms = performance.now() - start;
        if (ms > worst.ms) worst = { ms, pattern: source };
      }
      return true;
    }),
    { numRuns: runs },
  );
  return { runs, accepted, worstMs: Math.round(worst.ms * 10) / 10, worstPattern: worst.pattern, ok: worst.ms <= BUDGET_MS };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await fuzzPatterns(Number(process.argv[2] ?? 3000));
  console.log(result);
  process.exit(result.ok ? 0 : 1);
}
