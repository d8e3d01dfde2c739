/**
 * The types of event are listed once, in src/core/api/event-types.ts
 * (docs/architecture.md#events-and-the-webhook-outbox):
 * the wire schema is built from that list (its compiler-checked map gives each type its `data`), the
 * client's types are generated from the schema (packages/client/test/openapi.test.ts keeps them in
 * step), and this test holds docs/api.md's table of events and the rest of the source to it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  EVENT_TYPES,
  eventTypes,
  type EventType,
  type JobEventType,
  type LiveEventType,
} from "../../src/core/api/event-types";
import { eventEnvelope } from "../../src/core/api/events";

const ROOT = join(import.meta.dirname, "../..");
/** The list itself, and what is generated from it. */
const THE_LIST = new Set(["src/core/api/event-types.ts", "packages/client/src/openapi.ts"]);
const SCANNED = ["src", "durable-objects", "packages/client/src", "packages/testing/src", "examples/telegram-bot/src"];

const type = `(?:${eventTypes.map((t) => t.replace(".", "\\.")).join("|")})`;
/**
 * Ways a hand-written list shows in code: two types side by side in an array or a union (not a key
 * of an object after a value); "this type or that one".
 */
const HAND_LISTS = [
  new RegExp(`(["'\`])${type}\\1\\s*[,|]\\s*(["'\`])${type}\\2(?!\\s*:)`),
  new RegExp(`type\\s*===?\\s*(["'])${type}\\1\\s*\\|\\|\\s*[\\w.]*type\\s*===?\\s*(["'])${type}\\2`),
];
/** A comment names types in prose (`job.started`, `job.finished`): only code is read. */
const isComment = (line: string) => /^\s*(\*|\/\*|\/\/)/.test(line);

/** `file:line: text` for every line of code in `text` that lists event types by hand. */
function handLists(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      !isComment(line) && HAND_LISTS.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
    );
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist") yield* sourceFiles(path);
    } else if (/\.(ts|js|mjs|html)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield path;
  }
}

/** The rows of docs/api.md's table of events: the types each names (in backticks in its first cell), and the row. */
function documentedTypes(): { types: string[]; row: string }[] {
  const api = readFileSync(join(ROOT, "docs/api.md"), "utf8");
  const section = api.slice(
    api.indexOf("\n## Events and webhooks\n"),
    api.indexOf("\n### ", api.indexOf("\n## Events and webhooks\n")),
  );
  const table = section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| type |") && !line.startsWith("|---"));
  return table.map((row) => ({ types: [...(row.split("|")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!), row }));
}

describe("the list of event types", () => {
  it("is what the wire schema is built from: one member per type, in the list's order", () => {
    expect(eventEnvelope.options.map((o) => o.shape.type.value)).toEqual(eventTypes);
  });

  it("says which are live only and which a job keeps on its row, and the types follow", () => {
    expect(eventTypes.filter((t) => "live" in EVENT_TYPES[t])).toEqual(["job.progress"]);
    expectTypeOf<LiveEventType>().toEqualTypeOf<"job.progress">();
    expectTypeOf<JobEventType>().toEqualTypeOf<"job.started" | "job.finished">();
    expectTypeOf<EventType | LiveEventType>().toEqualTypeOf<keyof typeof EVENT_TYPES>();
  });

  it("is the list docs/api.md's table of events gives, once each, the live ones said to be for live streams only", () => {
    const rows = documentedTypes().filter((r) => r.types.length > 0);
    const documented = rows.flatMap((r) => r.types);
    expect([...documented].sort()).toEqual([...eventTypes].sort());
    for (const { types, row } of rows) {
      for (const t of types)
        expect(row.includes("live streams only"), `${t}: ${row}`).toBe(
          "live" in EVENT_TYPES[t as keyof typeof EVENT_TYPES],
        );
    }
  });

  it("is written in one place only", () => {
    const found = SCANNED.flatMap((dir) => [...sourceFiles(dir)])
      .filter((file) => !THE_LIST.has(file))
      .flatMap((file) => handLists(file, readFileSync(join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("would be caught written anywhere else, in each way it has been", () => {
    expect(
      handLists("a.ts", `export const EVENT_TYPES = ["job.started", "job.finished", "batch.finished"] as const;`),
    ).toHaveLength(1);
    expect(
      handLists("a.ts", `export type JobEventType = Extract<EventType, "job.started" | "job.finished">;`),
    ).toHaveLength(1);
    // one per call, not a list
    expect(handLists("a.ts", `  event("chat.idle", {}), event("chat.created", { name })`)).toEqual([]);
    expect(
      handLists("a.js", `if (event.type === "job.started" || event.type === "job.finished") return;`),
    ).toHaveLength(1);
    expect(handLists("a.ts", ` * What \`job.started\`, \`job.finished\` say about a job`)).toEqual([]);
    expect(handLists("a.ts", `if (event.type === "batch.finished") return;`)).toEqual([]);
  });
});
