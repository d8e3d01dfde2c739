/**
 * The source keeps its floors (docs/architecture.md#the-source-tree): imports run one way, from
 * the Worker's edge (`src/edge/`) and the objects (`durable-objects/`) down to the core both run
 * (`src/core/`), and only the entry file reaches the objects; the chat object's rooms import only
 * their own floor and the ones below; no files and no folders import each other in a circle, and
 * no route imports a sibling route. Imports are read with TypeScript's own pre-processor, type-only
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
  return [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")].find(
    (f) => known.has(f) && existsSync(f),
  );
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

  it("runs one way: the edge and the objects build on the core, and only the entry file reaches the objects", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [file, targets] of imports) {
      const from = relative(repo, file);
      for (const target of targets) {
        const to = relative(repo, target);
        checked++;
        const objects = to.startsWith("durable-objects/");
        const edge = to.startsWith("src/edge/");
        if (from === "src/index.ts") continue;
        if (from.startsWith("src/core/") && (edge || objects)) wrong.push(`${from} -> ${to}`);
        if (from.startsWith("src/edge/") && objects) wrong.push(`${from} -> ${to}`);
        if (from.startsWith("durable-objects/") && (edge || to === "src/index.ts")) wrong.push(`${from} -> ${to}`);
        if (from.startsWith("src/") && !/^src\/(core|edge)\//.test(from))
          wrong.push(`${from}: a source file belongs to src/core/ or src/edge/`);
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(wrong).toEqual([]);
  });

  it("keeps the chat object's floors: storage, events, jobs, subagents, gates, then the top level", () => {
    const chat = join(repo, "durable-objects/chat");
    const FLOORS = ["storage", "events", "jobs", "subagents", "gates"];
    /** A room's floor; the top level (ChatDO.ts and its neighbours) is above every room. */
    const floorOf = (file: string): number | undefined => {
      const rel = relative(chat, file);
      if (rel.startsWith("..")) return undefined;
      const room = rel.split("/")[0]!;
      return rel.includes("/") ? FLOORS.indexOf(room) : FLOORS.length;
    };
    const upward: string[] = [];
    let inside = 0;
    for (const [file, targets] of imports) {
      const from = floorOf(file);
      if (from === undefined) continue;
      for (const target of targets) {
        const to = floorOf(target);
        if (to === undefined) continue;
        inside++;
        if (to > from) upward.push(`${relative(repo, file)} -> ${relative(repo, target)}`);
      }
    }
    expect(inside).toBeGreaterThan(100);
    expect(upward).toEqual([]);
  });

  it("has no route importing a sibling route", () => {
    const routes = join(repo, "src/edge/routes");
    const sibling = [...imports].flatMap(([file, targets]) =>
      dirname(file) === routes
        ? targets.filter((t) => dirname(t) === routes).map((t) => `${relative(repo, file)} -> ${relative(repo, t)}`)
        : [],
    );
    expect(sibling).toEqual([]);
  });
});
