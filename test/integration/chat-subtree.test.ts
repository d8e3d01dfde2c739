/**
 * A chat's subtree as the API shows it (SPEC §3.5): `GET /v1/chats` lists each
 * top-level chat with its descendants nested.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { agentConfig, api, call, configure, eventually, json, llmRequests, parallel, scriptLlm } from "../helpers";

afterEach(() => reset());

const sub = (message: string, more: Record<string, unknown> = {}) => call("call_subordinate", { message, reset: true, ...more });

/** The ids in a listed tree, nested as listed. */
const shape = (nodes: { chat_id: string; children: any[] }[]): unknown =>
  nodes.map((n) => (n.children.length ? { [n.chat_id]: shape(n.children) } : n.chat_id));

/**
 * `root` with three children: `lead` (profile boss) starts a grandchild whose agent loop keeps
 * calling the model (a short `wait` each step), the other two answer at once.
 */
async function treeWithLoopingGrandchild(root: string, tag: string) {
  const loopModel = `m-${tag}-loop`;
  await configure(
    agentConfig(`m-${tag}`, {
      agents: { boss: { model: `m-${tag}-boss` }, looper: { model: loopModel, max_steps: 1000 } },
    }),
  );
  await scriptLlm(`m-${tag}-boss`, [{ tool_calls: [{ name: "spawn_task", arguments: { task: "Keep going.", agent: "looper", wait: true } }] }]);
  await scriptLlm(loopModel, Array.from({ length: 400 }, () => ({ tool_calls: [{ name: "wait", arguments: { seconds: 0.05 } }] })));
  const started = await parallel(root, { tool_calls: [sub("Lead.", { profile: "boss" }), sub("Two."), sub("Three.")], wait: false });
  const [lead, two, three] = started.body.jobs.map((j: any) => j.context_id as string);
  const grandchild = await eventually(async () => {
    const res = await api(`/v1/chats/${lead}`);
    return res.status === 200 ? ((await json(res)).children?.[0]?.chat_id as string | undefined) : undefined;
  });
  // The grandchild's loop is running: it has asked the model a few times.
  await eventually(async () => (await llmRequests(loopModel)).length >= 3);
  return { lead: lead!, two: two!, three: three!, grandchild, loopModel };
}

describe("GET /v1/chats", () => {
  it("nests each top-level chat's children and grandchildren under it", async () => {
    const { lead, two, three, grandchild } = await treeWithLoopingGrandchild("tree-list", "tree-list");
    await parallel("tree-other", { tool_calls: [call("echo")] });
    // A top-level chat is indexed beside its first answer; each child was indexed before its first step.
    const list = await eventually(async () => {
      const body = await json(await api("/v1/chats"));
      return body.chats.length === 2 ? body : undefined;
    });
    expect(list.chats.map((c: any) => c.chat_id)).toEqual(["tree-list", "tree-other"]); // child chats are never top-level
    const [root, other] = list.chats;
    const byId = Object.fromEntries(root.children.map((c: any) => [c.chat_id, c]));
    expect(Object.keys(byId).sort()).toEqual([lead, two, three].sort());
    expect(byId[lead]).toMatchObject({ parent_chat_id: "tree-list", level: 1, name: "Lead." });
    expect(byId[lead].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(shape(byId[lead].children)).toEqual([grandchild]);
    expect(byId[lead].children[0]).toMatchObject({ parent_chat_id: lead, level: 2, name: "Keep going.", children: [] });
    expect(byId[two].children).toEqual([]);
    expect(other.children).toEqual([]);
    // Pages count top-level chats only; a tree comes whole with its top-level chat.
    const first = await json(await api("/v1/chats?limit=1"));
    expect(shape(first.chats)).toEqual([{ "tree-list": expect.any(Array) }]);
    expect(first.next_cursor).toBe("tree-list");
    await api("/v1/chats/tree-list", { method: "DELETE" });
  });
});
