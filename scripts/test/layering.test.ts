/**
 * The source keeps its floors (docs/architecture.md#the-chat-object-room-by-room):
 * no files and no folders import each other in a circle, and no route imports a
 * sibling route. Imports are read with TypeScript's own pre-processor, type-only
 * ones included: a type that points upwards ties the floors together too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = join(dirname(new URL(import.meta.url).pathname), "..", "..");
const ROOTS = ["src", "durable-objects", "packages/client/src"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = ROOTS.flatMap((root) => sourceFiles(join(repo, root)));
const known = new Set(files);

/** The repo file a relative import names, if it is one of ours. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = normalize(join(dirname(from), specifier));
  return [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")].find((f) => known.has(f) && existsSync(f));
}

const imports = new Map(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    return [file, importedFiles.flatMap((i) => resolveImport(file, i.fileName) ?? [])];
  }),
);

/** Strongly connected groups of more than one node (Tarjan): each is a circle. */
function circles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do group.push((w = stack.pop()!));
    while (w !== v);
    if (group.length > 1) found.push(group.map((f) => relative(repo, f)).sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("the import graph", () => {
  it("reads the source (the check is not vacuous)", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.get(join(repo, "durable-objects/chat/ChatDO.ts"))?.length).toBeGreaterThan(5);
  });

  it("has no circle between files", () => {
    expect(circles(imports)).toEqual([]);
  });

  it("has no circle between folders", () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of imports) {
      const from = dirname(file);
      const to = targets.map(dirname).filter((d) => d !== from);
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
    }
    expect(circles(folders)).toEqual([]);
  });

  it("has no route importing a sibling route", () => {
    const routes = join(repo, "src/routes");
    const sibling = [...imports].flatMap(([file, targets]) =>
      dirname(file) === routes ? targets.filter((t) => dirname(t) === routes).map((t) => `${relative(repo, file)} -> ${relative(repo, t)}`) : [],
    );
    expect(sibling).toEqual([]);
  });
});
