/** The dashboard's chat list (src/edge/dashboard/assets/chat-list.js), in Node as the page loads it. */
import { describe, expect, it } from "vitest";

interface Chat {
  chat_id: string;
  name?: string;
  last_activity?: string;
}
interface ChatList {
  byActivity<T extends Chat>(chats: T[]): T[];
  matchChats<T extends Chat>(chats: T[], query: string): T[];
  ago(iso: string, now?: number): string;
  levelText(level: number): string;
  chatMeta(
    info: {
      chat_id: string;
      level: number;
      parent_chat_id: string | null;
      running_jobs: number;
      waiting_jobs?: number;
    },
    nameOf?: (id: string) => string,
  ): string;
  childName(job: { context_id: string; tool_args?: Record<string, unknown> }, known?: { name?: string }): string;
  jobCounts(info: { running_jobs: number; waiting_jobs?: number }): string;
}

// The worker bundles this file as text; Node runs it as the module the page loads.
const list = (await import(new URL("../../src/edge/dashboard/assets/chat-list.js", import.meta.url).href)) as ChatList;

const T0 = Date.parse("2026-12-02T10:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

describe("the chat list", () => {
  it("puts the most recently active chat first, ties by id, chats without a time last", () => {
    const chats = [
      { chat_id: "b", last_activity: at(10) },
      { chat_id: "never" },
      { chat_id: "c", last_activity: at(30) },
      { chat_id: "a", last_activity: at(10) },
    ];
    expect(list.byActivity(chats).map((c) => c.chat_id)).toEqual(["c", "a", "b", "never"]);
    expect(chats.map((c) => c.chat_id)).toEqual(["b", "never", "c", "a"]); // a copy is sorted
  });

  it("searches chats by id or name, in any case", () => {
    const chats = [
      { chat_id: "support-42", name: "support-42" },
      { chat_id: "c_9f1", name: "Check the order status of #1042" },
    ];
    expect(list.matchChats(chats, "ORDER").map((c) => c.chat_id)).toEqual(["c_9f1"]);
    expect(list.matchChats(chats, "support").map((c) => c.chat_id)).toEqual(["support-42"]);
    expect(list.matchChats(chats, "  ")).toHaveLength(2);
  });

  it("says how long ago a chat was active", () => {
    const now = T0 + 1000 * 1000 * 1000;
    const ago = (seconds: number) => list.ago(new Date(now - seconds * 1000).toISOString(), now);
    expect([ago(5), ago(90), ago(50 * 60), ago(3 * 3600), ago(3 * 86_400)]).toEqual([
      "just now",
      "2 min ago",
      "50 min ago",
      "3 h ago",
      "3 d ago",
    ]);
  });
});

describe("a chat's place, in words", () => {
  it("says top level or subagent and its depth, and names the chat that started it", () => {
    expect(
      list.chatMeta({ chat_id: "support-42", level: 0, parent_chat_id: null, running_jobs: 2, waiting_jobs: 0 }),
    ).toBe("support-42 · top level · 2 running · 0 waiting");
    const names: Record<string, string> = { "support-42": "Help Ana with her order" };
    expect(
      list.chatMeta(
        { chat_id: "sub-x1", level: 2, parent_chat_id: "support-42", running_jobs: 0, waiting_jobs: 0 },
        (id) => names[id] ?? id,
      ),
    ).toBe("sub-x1 · subagent, depth 2 · started by Help Ana with her order · 0 running · 0 waiting");
  });

  it("counts a job that waits for a person as waiting, not running", () => {
    expect(list.jobCounts({ running_jobs: 1, waiting_jobs: 1 })).toBe("0 running · 1 waiting");
    expect(list.jobCounts({ running_jobs: 3, waiting_jobs: 1 })).toBe("2 running · 1 waiting");
    // An older worker's answer has no waiting_jobs: every active job counts as running.
    expect(list.jobCounts({ running_jobs: 2 })).toBe("2 running · 0 waiting");
  });

  it("calls a child chat by its name, else by the task it was given, else by its id", () => {
    const job = { context_id: "sub-x1", tool_args: { task: "Plan a picnic" } };
    expect(list.childName(job, { name: "Picnic plans" })).toBe("Picnic plans");
    expect(list.childName(job)).toBe("Plan a picnic");
    expect(list.childName({ context_id: "sub-x2", tool_args: { message: "Check Oslo" } })).toBe("Check Oslo");
    expect(list.childName({ context_id: "sub-x3", tool_args: {} })).toBe("sub-x3");
  });
});
