/**
 * A job's states are listed once, in src/core/api/job-states.ts (docs/architecture.md#job-states): the
 * API schema, the SQL, the client and the dashboard take them from there. This reads the source
 * tree and fails on any other place that lists them by hand.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { JOB_STATES } from "../../src/core/api/job-states";

const ROOT = join(import.meta.dirname, "../..");
/** The list itself, and what is generated from it. */
const THE_LIST = new Set([
  "src/core/api/job-states.ts",
  "packages/client/src/job-states.ts",
  "packages/client/src/openapi.ts",
]);
const SCANNED = ["src", "durable-objects", "packages/client/src", "examples/telegram-bot/src"];

const state = `(?:${Object.keys(JOB_STATES).join("|")})`;
/**
 * Ways a hand-written list shows: two states side by side in an array, a union or an SQL list (not
 * a JSON key after a value, `"error","error":`); a menu of them; "this state or that one".
 */
const HAND_LISTS = [
  new RegExp(`(["'\`])${state}\\1\\s*[,|]\\s*(["'\`])${state}\\2(?!\\s*:)`),
  new RegExp(`<option value="${state}"`),
  new RegExp(`state\\s*===?\\s*(["'])${state}\\1\\s*\\|\\|\\s*[\\w.]*state\\s*===?\\s*(["'])${state}\\2`),
];

/** `file:line: text` for every line of `text` that lists states by hand. */
function handLists(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) => (HAND_LISTS.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist") yield* sourceFiles(path);
    } else if (/\.(ts|js|mjs|html)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield path;
  }
}

describe("the list of job states", () => {
  it("is written in one place only", () => {
    const found = SCANNED.flatMap((dir) => [...sourceFiles(dir)])
      .map((path) => relative(ROOT, join(ROOT, path)))
      .filter((file) => !THE_LIST.has(file))
      .flatMap((file) => handLists(file, readFileSync(join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("would be caught written anywhere else, in each way it has been", () => {
    expect(handLists("a.ts", `export const jobState = z.enum(["pending", "running", "success"]);`)).toHaveLength(1);
    expect(handLists("a.ts", "const ACTIVE = `state IN ('pending', 'running')`;")).toHaveLength(1);
    expect(handLists("a.ts", `type S = "pending" | "running";`)).toHaveLength(1);
    expect(handLists("a.html", `<option value="timeout">timeout</option>`)).toHaveLength(1);
    expect(
      handLists("a.js", `const isActive = (job) => job.state === "pending" || job.state === "running";`),
    ).toHaveLength(1);
    expect(handLists("a.ts", `if (job.state === "success") return;`)).toEqual([]);
  });
});
