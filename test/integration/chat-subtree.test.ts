/**
 * A chat's subtree as the API shows it (docs/api.md#companion-routes): `GET /v1/chats` lists each
 * top-level chat with its descendants nested, and `DELETE /v1/chats/{chat}`
 * removes the whole subtree, durably, even when a part of it cannot be reached
 * at first.
 */
import { reset, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { swapEnv } from "../faults";
import {
  agentConfig,
  api,
  call,
  chatObject,
  configure,
  eventually,
  json,
  llmRequests,
  parallel,
  scriptLlm,
} from "../helpers";

afterEach(() => reset());

const sub = (message: string, more: Record<string, unknown> = {}) =>
  call("call_subordinate", { message, reset: true, ...more });

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
  await scriptLlm(`m-${tag}-boss`, [
    { tool_calls: [{ name: "spawn_task", arguments: { task: "Keep going.", agent: "looper", wait: true } }] },
  ]);
  await scriptLlm(
    loopModel,
    Array.from({ length: 400 }, () => ({ tool_calls: [{ name: "wait", arguments: { seconds: 0.05 } }] })),
  );
  const started = await parallel(root, {
    tool_calls: [sub("Lead.", { profile: "boss" }), sub("Two."), sub("Three.")],
    wait: false,
  });
  const [lead, two, three] = started.body.jobs.map((j: any) => j.context_id as string);
  const grandchild = await eventually(async () => {
    const res = await api(`/v1/chats/${lead}`);
    return res.status === 200 ? ((await json(res)).children?.[0]?.chat_id as string | undefined) : undefined;
  });
  // The grandchild's loop is running: it has asked the model a few times.
  await eventually(async () => (await llmRequests(loopModel)).length >= 3);
  return { lead: lead!, two: two!, three: three!, grandchild, loopModel };
}

const tables = (chat: string) =>
  runInDurableObject(chatObject(chat), (_i, s) =>
    s.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf%'").toArray(),
  );

async function expectGone(chat: string) {
  for (const path of ["", "/jobs", "/log", "/extras"]) {
    const res = await api(`/v1/chats/${chat}${path}`);
    expect(res.status, `${chat}${path}`).toBe(404);
    expect((await json(res)).error.code).toBe("chat_not_found");
  }
}

const listedIds = async () => {
  const ids: string[] = [];
  const walk = (nodes: { chat_id: string; children: any[] }[]): void => {
    for (const n of nodes) {
      ids.push(n.chat_id);
      walk(n.children);
    }
  };
  walk((await json(await api("/v1/chats?limit=200"))).chats);
  return ids;
};

describe("GET /v1/chats", () => {
  it("nests each top-level chat's children and grandchildren under it", async () => {
    const { lead, two, three, grandchild } = await treeWithLoopingGrandchild("tree-list", "tree-list");
    await parallel("tree-other", { tool_calls: [call("echo")] });
    // A top-level chat is indexed beside its first answer; each child was indexed before its first step.
    const list = await eventually(async () => {
      const body = await json(await api("/v1/chats"));
      return body.chats.length === 2 ? body : undefined;
    });
    // child chats are never top-level
    expect(list.chats.map((c: any) => c.chat_id)).toEqual(["tree-list", "tree-other"]);
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

describe("DELETE /v1/chats/{chat}", () => {
  it("removes every descendant with the chat before it answers, and stops their agent loops", async () => {
    const { lead, two, three, grandchild, loopModel } = await treeWithLoopingGrandchild("tree-del", "tree-del");
    await eventually(async () => (await listedIds()).includes(grandchild));

    const res = await api("/v1/chats/tree-del", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: "deleted", chat_id: "tree-del" });
    const callsAtDelete = (await llmRequests(loopModel)).length;

    for (const chat of ["tree-del", lead, two, three, grandchild]) {
      await expectGone(chat);
      expect(await tables(chat), chat).toEqual([]);
    }
    expect(await listedIds()).toEqual([]);
    // The grandchild's loop took no further step: the model hears nothing more from it.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await llmRequests(loopModel)).length).toBe(callsAtDelete);
    expect(await tables(grandchild)).toEqual([]);
    // Gone is gone: deleting it again finds nothing.
    expect((await api("/v1/chats/tree-del", { method: "DELETE" })).status).toBe(404);
  });

  it("answers 503 while a child cannot be reached; the alarm retries until the whole subtree is gone", async () => {
    await configure(agentConfig("m-tree-503"));
    await scriptLlm("m-tree-503", [{ tool_calls: [{ name: "hang", arguments: {} }] }]);
    const started = await parallel("tree-503", { tool_calls: [sub("Hang.")], wait: false });
    const { job_id, context_id: child } = started.body.jobs[0];
    await eventually(async () => (await listedIds()).includes(child));

    // The root's calls to delete its child fail until the child is reachable again.
    const fault = { reachable: false, refused: 0 };
    await swapEnv(chatObject("tree-503"), (real) => ({
      CHAT: {
        get: (id: DurableObjectId) => real.CHAT.get(id),
        getByName: (name: string) => {
          const stub = real.CHAT.getByName(name) as any;
          if (name !== `chat/acme/${child}`) return stub;
          return new Proxy(
            {},
            {
              get: (_target, method: string) =>
                method === "deleteChat" && !fault.reachable
                  ? () => (fault.refused++, Promise.reject(new Error("child chat unreachable")))
                  : (...args: unknown[]) => stub[method](...args),
            },
          );
        },
      },
    }));

    const res = await api("/v1/chats/tree-503", { method: "DELETE" });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await json(res)).error.code).toBe("unavailable");
    expect(fault.refused).toBeGreaterThanOrEqual(2); // retried within the request first

    // Pending: the chat reads as gone, nothing of the tree is listed, and nothing new joins it.
    await expectGone("tree-503");
    expect(await listedIds()).toEqual([]);
    expect((await api("/v1/chats/tree-503", { method: "DELETE" })).status).toBe(503);
    const refused = await api("/v1/chats/tree-503/parallel", { body: { tool_calls: [call("echo")] } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await parallel("tree-503", { action: "await", job_ids: [job_id] })).toMatchObject({ status: 503 });
    const jobs = await runInDurableObject(chatObject("tree-503"), (_i, s) =>
      s.storage.sql.exec("SELECT job_id, state FROM jobs").toArray(),
    );
    expect(jobs).toEqual([{ job_id, state: "cancelled" }]);

    // Still unreachable: the alarm tries, fails and keeps its next try.
    const before = fault.refused;
    expect(await runDurableObjectAlarm(chatObject("tree-503"))).toBe(true);
    expect(fault.refused).toBeGreaterThan(before);
    await expectGone("tree-503");

    fault.reachable = true;
    expect(await runDurableObjectAlarm(chatObject("tree-503"))).toBe(true);
    for (const chat of ["tree-503", child]) {
      await expectGone(chat);
      expect(await tables(chat), chat).toEqual([]);
    }
    expect((await api("/v1/chats/tree-503", { method: "DELETE" })).status).toBe(404);
    expect(await listedIds()).toEqual([]);
  });
});
