/**
 * `GET /v1/chats` as a tree (docs/api.md#chat-info-and-the-chat-list): descendants nested under their
 * top-level chat, and a page bounded however many children a tree kept.
 */
import { describe, expect, it } from "vitest";
import { chatList } from "../../src/core/api/chats";
import {
  chatTree,
  MAX_LISTED_CHILDREN,
  MAX_LISTED_DESCENDANTS,
  type ChildrenOf,
  type IndexRow,
} from "../../src/core/chats/chat-tree";
import { T0 } from "./fixtures";

const row = (chat_id: string, parent_chat_id: string | null, level: number, at: number): IndexRow => ({
  chat_id,
  parent_chat_id,
  level,
  name: `name of ${chat_id}`,
  created_at: T0 + at,
  last_activity: T0 + at + 1,
});

/** What the TenantDO's one statement per level answers, over an in-memory index. */
function index(rows: IndexRow[]): { childrenOf: ChildrenOf; calls: string[][] } {
  const calls: string[][] = [];
  const childrenOf: ChildrenOf = (parents) => {
    calls.push(parents);
    const out: IndexRow[] = [];
    const counts = new Map<string, number>();
    for (const parent of parents) {
      const all = rows.filter((r) => r.parent_chat_id === parent).sort((a, b) => b.created_at - a.created_at);
      if (all.length) counts.set(parent, all.length);
      out.push(...all.slice(0, MAX_LISTED_CHILDREN));
    }
    return { rows: out, counts };
  };
  return { childrenOf, calls };
}

const ids = (nodes: { chat_id: string; children: any[] }[]): unknown =>
  nodes.map((n) => (n.children.length ? { [n.chat_id]: ids(n.children) } : n.chat_id));

describe("the chat listing tree", () => {
  it("nests each top-level chat's descendants under it, oldest first, in the listed chat's shape", () => {
    const a = row("a", null, 0, 0);
    const b = row("b", null, 0, 1);
    const rows = [
      row("sub-2", "a", 1, 20),
      row("sub-1", "a", 1, 10),
      row("sub-1x", "sub-1", 2, 30),
      row("sub-b", "b", 1, 5),
      row("sub-other", "z", 1, 5),
    ];
    const { childrenOf, calls } = index(rows);
    const tree = chatTree([a, b], childrenOf);
    expect(ids(tree)).toEqual([{ a: [{ "sub-1": ["sub-1x"] }, "sub-2"] }, { b: ["sub-b"] }]);
    expect(tree[0]!.children[0]).toEqual({
      chat_id: "sub-1",
      parent_chat_id: "a",
      level: 1,
      name: "name of sub-1",
      created_at: new Date(T0 + 10).toISOString(),
      last_activity: new Date(T0 + 11).toISOString(),
      children: [expect.objectContaining({ chat_id: "sub-1x", level: 2, children: [] })],
    });
    expect(calls).toEqual([["a", "b"], ["sub-1", "sub-2", "sub-b"], ["sub-1x"]]); // one lookup per level
    // no key the schema lacks
    expect(chatList.parse({ chats: tree, next_cursor: null })).toEqual({ chats: tree, next_cursor: null });
  });

  it("lists a chat's newest children and says how many were left out", () => {
    const rows = Array.from({ length: MAX_LISTED_CHILDREN + 7 }, (_, i) =>
      row(`sub-${String(i).padStart(2, "0")}`, "a", 1, i),
    );
    const [a] = chatTree([row("a", null, 0, 0)], index(rows).childrenOf);
    expect(a!.children).toHaveLength(MAX_LISTED_CHILDREN);
    expect(a!.children[0]!.chat_id).toBe("sub-07");
    expect(a!.children.at(-1)!.chat_id).toBe(`sub-${MAX_LISTED_CHILDREN + 6}`);
    expect(a!.more_children).toBe(7);
  });

  it("bounds a top-level chat's descendants in all, nearest levels first, and other trees keep their own budget", () => {
    const rows: IndexRow[] = [];
    for (let i = 0; i < MAX_LISTED_CHILDREN; i++) {
      rows.push(row(`c${i}`, "a", 1, i));
      for (let j = 0; j < 5; j++) rows.push(row(`c${i}-g${j}`, `c${i}`, 2, 100 + i * 10 + j));
    }
    rows.push(row("sub-b", "b", 1, 0));
    const [a, b] = chatTree([row("a", null, 0, 0), row("b", null, 0, 0)], index(rows).childrenOf);
    const count = (n: { children: any[] }): number => n.children.reduce((sum, c) => sum + 1 + count(c), 0);
    expect(count(a!)).toBe(MAX_LISTED_DESCENDANTS);
    expect(a!.children).toHaveLength(MAX_LISTED_CHILDREN); // every child before any grandchild
    const cut = a!.children.filter((c) => c.more_children);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((c) => c.more_children === 5 - c.children.length)).toBe(true);
    expect(ids([b!])).toEqual([{ b: ["sub-b"] }]);
  });

  it("stops at max_depth 5 and never lists a chat twice, whatever the index holds", () => {
    const rows = [1, 2, 3, 4, 5, 6].map((level) => row(`l${level}`, level === 1 ? "a" : `l${level - 1}`, level, level));
    rows.push(row("a", "l2", 3, 99)); // a link back to the top
    const { childrenOf, calls } = index(rows);
    const [a] = chatTree([row("a", null, 0, 0)], childrenOf);
    expect(ids([a!])).toEqual([{ a: [{ l1: [{ l2: [{ l3: [{ l4: ["l5"] }] }] }] }] }]);
    expect(calls).toHaveLength(5);
  });
});
