/**
 * A job's `job.started` and `job.finished` with nowhere to deliver them are kept on the job's row,
 * not as event rows (docs/architecture.md#what-a-job-writes): they read back as they were
 * announced after the jobs are purged, after the chat becomes somebody's child, and a redelivery
 * of one says there is nothing to repeat.
 */
import { env, reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { chatLimits } from "../../src/core/config/chat-limits";
import { defaultConfig } from "../../src/core/config/schema";
import { ChatStore } from "../../durable-objects/chat/storage/chat-store";
import { api, call, chatObject, configure, eventually, json, parallel, toolConfig } from "../helpers";

afterEach(() => reset());

type Kept = { seq: number; body: string }[];

/** Every kept event of a chat as a resuming client reads it, and what the chat's tables hold. */
const kept = (chat: string) =>
  runInDurableObject(chatObject(chat), (_i, state) => {
    const store = new ChatStore(state, () => env);
    return {
      events: store.events.after(0, 100, Date.now()) as Kept,
      rows: state.storage.sql
        .exec<{ type: string }>("SELECT type FROM events ORDER BY seq")
        .toArray()
        .map((r) => r.type),
      jobs: store.jobs.count(),
    };
  });

describe("job events kept on the job row", () => {
  it("move to event rows, unchanged, when the jobs are purged before them (retention under a day)", async () => {
    await configure(toolConfig({ limits: { retention_seconds: 60 } }));
    // The idempotency record outlives the jobs (24 h), so the chat is not emptied by the purge.
    const res = await parallel(
      "je1",
      { tool_calls: [call("echo", { a: 1 }), call("echo", { a: 2 })] },
      { headers: { "idempotency-key": "je1" } },
    );
    expect(res.body.status).toBe("success");
    const before = await kept("je1");
    expect(before.rows).not.toContain("job.started");
    expect(before.events.map((e) => JSON.parse(e.body).type).filter((t: string) => t.startsWith("job."))).toHaveLength(
      4,
    );

    const after = await runInDurableObject(chatObject("je1"), (_i, state) => {
      const store = new ChatStore(state, () => env);
      const ended = state.storage.sql.exec<{ at: number }>("SELECT MAX(completed_at) AS at FROM jobs").one().at;
      expect(store.purge(ended + 61_000)).toBe("kept");
      return { events: store.events.after(0, 100, ended + 61_000) as Kept, jobs: store.jobs.count() };
    });
    expect(after.jobs).toBe(0);
    expect(after.events).toEqual(before.events);
  });

  it("keep the lineage they were announced with when the chat later becomes somebody's child", async () => {
    await configure(toolConfig());
    await parallel("je2", { tool_calls: [call("echo")] }); // a client used the id before the hand-over
    const before = await kept("je2");
    expect(
      JSON.parse(before.events.find((e) => JSON.parse(e.body).type === "job.finished")!.body).data.parent_chat_id,
    ).toBeNull();

    const held = await parallel("je2-parent", { tool_calls: [call("hang")], wait: false });
    const jobId = held.body.jobs[0].job_id as string;
    const lease = await eventually(() =>
      runInDurableObject(
        chatObject("je2-parent"),
        (_i, s) =>
          s.storage.sql
            .exec<{ lease: string }>("SELECT lease FROM jobs WHERE job_id = ? AND lease IS NOT NULL", jobId)
            .toArray()[0]?.lease,
      ),
    );
    const started = await chatObject("je2").beginTurn({
      tenant: "acme",
      chat_id: "je2",
      parent_chat_id: "je2-parent",
      root_chat_id: "je2-parent",
      parent_job_id: jobId,
      lease,
      deadline_at: Date.now() + 60_000,
      level: 1,
      profile: "default",
      name: "n",
      message: "m",
      attachments: [],
      limits: chatLimits(defaultConfig()),
    });
    expect(started).toBe("started");
    const now = await kept("je2");
    expect(now.events.slice(0, before.events.length)).toEqual(before.events);
    expect(now.rows).toContain("job.finished");
  });

  it("has no delivery to repeat: a redelivery is 404 and says why", async () => {
    await configure(toolConfig());
    await parallel("je3", { tool_calls: [call("echo")] });
    const { events } = await kept("je3");
    const finished = JSON.parse(events.find((e) => JSON.parse(e.body).type === "job.finished")!.body);
    const res = await api(`/v1/chats/je3/events/${finished.id}/redeliver`, { method: "POST" });
    expect(res.status).toBe(404);
    expect((await json(res)).error.message).toBe(
      `Event '${finished.id}' of chat 'je3' had no webhook to go to when it happened, so there is no delivery to repeat.`,
    );
  });
});
