/**
 * Awaits (docs/architecture.md#awaits): a request that waits for jobs waits in the worker, on a
 * hibernatable socket to the chat, so the chat holds no request meanwhile. Completion wakes it at
 * once; a restart of the chat during the wait does not lose it.
 */
import { abortAllDurableObjects, evictDurableObject, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { AWAIT_TAG } from "../../durable-objects/chat/jobs/waiters";
import { JOBS_ENDED } from "../../src/core/jobs/messages";
import { api, call, chatObject, configure, eventually, json, parallel, toolCalls, toolConfig } from "../helpers";

afterEach(() => reset());

const waitingSockets = (chat: string) =>
  runInDurableObject(chatObject(chat), (_i, state) => state.getWebSockets(AWAIT_TAG).length);

describe("a waiting request", () => {
  it("waits on a socket to its chat, not in it, and is answered when its jobs end", async () => {
    await configure();
    const chat = "await-socket";
    const waiting = parallel(chat, { tool_calls: [call("sleep", { ms: 1200 }), call("echo", { n: 1 })], timeout: 20 });
    await eventually(async () => (await waitingSockets(chat)) === 1);
    const { body } = await waiting;
    expect(body.status).toBe("success");
    expect(body.jobs.map((j: { result: string }) => j.result)).toEqual(["slept 1200", '{"n":1}']);
    await eventually(async () => (await waitingSockets(chat)) === 0); // the worker closed it
  });

  it.each([
    ["hibernated and evicted", (chat: string) => evictDurableObject(chatObject(chat))],
    ["restarted (a deploy)", () => abortAllDurableObjects()],
  ])("is still answered when its chat is %s meanwhile", async (_how, restart) => {
    await configure();
    const chat = `await-restart-${_how.split(" ")[0]}`;
    const waiting = parallel(chat, { tool_calls: [call("sleep", { ms: 1500 })], timeout: 20 });
    await eventually(async () => (await waitingSockets(chat)) === 1);
    await restart(chat).catch(() => {});
    const { body } = await waiting;
    expect(body).toMatchObject({ status: "success", jobs: [{ state: "success", result: "slept 1500" }] });
  });

  it("that times out gets the jobs still running, and they can be awaited again", async () => {
    await configure();
    const chat = "await-timeout";
    const { body } = await parallel(chat, { tool_calls: [call("sleep", { ms: 2500 })], timeout: 1 });
    expect(body).toMatchObject({ status: "waiting", wait_timeout: true });
    const again = await parallel(chat, { action: "await", job_ids: [body.jobs[0].job_id], timeout: 10 });
    expect(again.body).toMatchObject({ status: "success", jobs: [{ result: "slept 2500" }] });
    expect(await toolCalls(body.jobs[0].job_id)).toHaveLength(1);
  });

  it("on /tool-calls waits the same way and answers in call order", async () => {
    await configure();
    const chat = "await-tool-calls";
    const res = await api(`/v1/chats/${chat}/tool-calls`, {
      method: "POST",
      body: {
        tool_calls: [
          { id: "c1", type: "function", function: { name: "sleep", arguments: JSON.stringify({ ms: 800 }) } },
          { id: "c2", type: "function", function: { name: "echo", arguments: "{}" } },
        ],
      },
    });
    const answer = await json(res);
    expect(res.status).toBe(200);
    expect(answer.status).toBe("success");
    expect(answer.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual(["c1", "c2"]);
  });
});

describe("a wait on many jobs", () => {
  it("holds as many ids as an await may name (max_job_ids) on its socket", async () => {
    await configure(toolConfig({ limits: { max_calls: 32, max_job_ids: 1000, max_active_jobs_per_chat: 200 } }));
    const chat = "await-many";
    const ids: string[] = [];
    for (let b = 0; b < 4; b++) {
      const { body } = await parallel(chat, {
        tool_calls: Array.from({ length: 32 }, (_, i) => call("sleep", { ms: 1500 + i })),
        wait: false,
      });
      ids.push(...body.jobs.map((j: { job_id: string }) => j.job_id));
    }
    const { body } = await parallel(chat, { action: "await", job_ids: ids, timeout: 30 });
    expect(body.status).toBe("success");
    expect(body.jobs).toHaveLength(128);
  }, 40_000);
});

describe("a wake", () => {
  const openWait = async (chat: string, query: string) => {
    const res = await chatObject(chat).fetch(`https://chat/await?${query}`, { headers: { upgrade: "websocket" } });
    const socket = res.webSocket!;
    socket.accept();
    return new Promise<string>((resolve) => socket.addEventListener("message", (e) => resolve(e.data as string)));
  };

  it("carries a batch's answer when the request asks for it, and the jobs are collected", async () => {
    await configure();
    const chat = "wake-answer";
    const { body } = await parallel(chat, {
      tool_calls: [call("sleep", { ms: 300 }), call("echo", { n: 2 })],
      wait: false,
    });
    const ids: string[] = body.jobs.map((j: { job_id: string }) => j.job_id);
    const query = `${ids.map((id) => `job_id=${id}`).join("&")}&answer=4`;
    const answer = JSON.parse(await openWait(chat, query));
    expect(answer).toMatchObject({ ok: true, payload: { status: "success" } });
    // Cut to the request's max_result_chars, as the RPC's answer is.
    expect(answer.payload.jobs.map((j: { result: string }) => j.result)).toEqual(["slep", '{"n"']);
    // Collected by the answer the wake carried: the chat lists only active and uncollected jobs.
    expect((await json(await api(`/v1/chats/${chat}/jobs`))).jobs).toEqual([]);
    // Jobs ended already: the answer comes at once; without `answer`, only that they ended.
    expect(JSON.parse(await openWait(chat, query)).payload.jobs).toHaveLength(2);
    expect(await openWait(chat, ids.map((id) => `job_id=${id}`).join("&"))).toBe(JOBS_ENDED);
  });

  it("says only that the jobs ended when the answer is too long for one message; the worker asks for it", async () => {
    await configure(toolConfig({ limits: { max_result_chars: 2_000_000 } }));
    const chat = "wake-long-answer";
    const { body } = await parallel(chat, { tool_calls: [call("big", { bytes: 600_000 })], wait: false });
    const id = body.jobs[0].job_id;
    expect(await openWait(chat, `job_id=${id}&answer=2000000`)).toBe(JOBS_ENDED);
    const { body: waited } = await parallel(chat, { action: "await", job_ids: [id], timeout: 10 });
    expect(waited.jobs[0].result).toHaveLength(600_000);
  });
});
