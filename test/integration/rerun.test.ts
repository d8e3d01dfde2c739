/**
 * Rerun (docs/api.md#rerun) in the Workers runtime: the failed part of a finished batch runs again
 * as a new batch of the same chat, under today's configuration and gates, and its answer and
 * `batch.finished` are the whole batch in the original order. A side effect whose outcome is unknown
 * runs again only when named; a request repeated under its Idempotency-Key starts nothing new.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, chatObject, configure, json, parallel, toolCalls, toolConfig } from "../helpers";

afterEach(() => reset());

type Job = {
  job_id: string;
  tool_name: string;
  state: string;
  rerun_of?: string;
  error_type?: string;
  result?: string;
};

const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));
const rerun = async (chat: string, batch: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await api(`/v1/chats/${chat}/batches/${batch}/rerun`, { method: "POST", body, headers });
  return { status: res.status, body: await json(res) };
};
/** A finished batch of four calls: a success, a read that may run again, a broken side effect, a 404. */
async function failedBatch(chat: string) {
  await configure(toolConfig());
  const { body } = await parallel(chat, {
    tool_calls: [call("echo", { n: 1 }), call("fail500"), call("drop_write"), call("fail404")],
    timeout: 20,
    // A read-only call that answers 500 is retried until its deadline: a short one ends it soon.
    job_timeout: 2,
  });
  const jobs = body.jobs as Job[];
  const batch = (await record(chat, jobs[0]!.job_id)).batch_id as string;
  return { jobs, batch };
}
const batchFinished = (chat: string, batchId: string) =>
  runInDurableObject(chatObject(chat), (_i, state) =>
    state.storage.sql
      .exec<{ data: string }>("SELECT data FROM events WHERE type = 'batch.finished'")
      .toArray()
      .map((r) => JSON.parse(r.data) as { batch_id: string; rerun_of?: string; results: { jobs: Job[] } })
      .find((d) => d.batch_id === batchId),
  );

describe("rerun", () => {
  it("runs again only the jobs that failed and may safely run again, and answers the whole batch in order", async () => {
    const { jobs, batch } = await failedBatch("rr-1");
    const [echo, fail500, dropWrite, fail404] = jobs;
    expect(fail500).toMatchObject({ error_type: "http_status", retryable: true });
    const { status, body } = await rerun("rr-1", batch);
    expect(status).toBe(200);
    expect(body).toMatchObject({ rerun_of: batch, status: "partial" });
    expect(body.batch_id).toMatch(/^batch-/);
    expect(body.batch_id).not.toBe(batch);
    const answered = body.jobs as Job[];
    expect(answered.map((j) => j.tool_name)).toEqual(["echo", "fail500", "drop_write", "fail404"]);
    // Carried over as they ended: the success, the unknown side effect, the 404.
    expect([answered[0]!.job_id, answered[2]!.job_id, answered[3]!.job_id]).toEqual([
      echo!.job_id,
      dropWrite!.job_id,
      fail404!.job_id,
    ]);
    expect(answered[1]).toMatchObject({ rerun_of: fail500!.job_id, state: "error", error_type: "http_status" });
    expect(answered[1]!.job_id).not.toBe(fail500!.job_id);
    expect(await record("rr-1", answered[1]!.job_id)).toMatchObject({
      batch_id: body.batch_id,
      rerun_of: fail500!.job_id,
      index: 1,
    });
    expect(await toolCalls(dropWrite!.job_id)).toHaveLength(1);

    const finished = await batchFinished("rr-1", body.batch_id);
    expect(finished?.rerun_of).toBe(batch);
    expect(finished?.results.jobs.map((j) => j.job_id)).toEqual(answered.map((j) => j.job_id));
  });

  it("runs a side effect whose outcome is unknown only when named, and takes new arguments by job id", async () => {
    const { jobs, batch } = await failedBatch("rr-2");
    const [echo, , dropWrite] = jobs;
    const { status, body } = await rerun("rr-2", batch, {
      jobs: [dropWrite!.job_id, echo!.job_id],
      tool_args: { [echo!.job_id]: { n: 2 } },
    });
    expect(status).toBe(200);
    const answered = body.jobs as Job[];
    expect(answered.map((j) => j.rerun_of ?? null)).toEqual([echo!.job_id, jobs[1]!.job_id, dropWrite!.job_id, null]);
    expect(JSON.parse(answered[0]!.result!)).toEqual({ n: 2 });
    expect(await toolCalls(answered[2]!.job_id)).toHaveLength(1);
    // A rerun of a rerun still answers for the whole batch.
    const again = await rerun("rr-2", body.batch_id, { jobs: [answered[0]!.job_id] });
    expect(again.status).toBe(200);
    expect((again.body.jobs as Job[]).map((j) => j.tool_name)).toEqual(["echo", "fail500", "drop_write", "fail404"]);
    expect(again.body.jobs[0].rerun_of).toBe(answered[0]!.job_id);
  });

  it("keeps the calls' ids and passes every gate of today's configuration", async () => {
    // A read-only call that answers 500 is retried until its deadline: a short one ends it soon.
    const limits = { tool_job_timeout_seconds: 2 };
    await configure(toolConfig({ limits }));
    const answer = await json(
      await api("/v1/chats/rr-3/tool-calls", {
        body: {
          tool_calls: [{ id: "call_a", type: "function", function: { name: "fail500", arguments: "{}" } }],
          timeout: 20,
        },
      }),
    );
    const original = answer.results[0].job_id as string;
    const batch = answer.batch_id as string;
    await configure(toolConfig({ limits, approvals: [{ tools: ["fail500"], timeout_seconds: 600 }] }));
    const { body } = await rerun("rr-3", batch, { wait: false });
    expect(body.jobs[0]).toMatchObject({
      tool_call_id: "call_a",
      rerun_of: original,
      state: "pending",
      waiting_for: "approval",
    });
  });

  it("refuses a second rerun of a batch while the first runs: the same calls would run twice", async () => {
    await configure(toolConfig());
    const { body } = await parallel("rr-6", { tool_calls: [call("fail404"), call("echo")], timeout: 20 });
    const batch = (await record("rr-6", body.jobs[0].job_id)).batch_id as string;
    await configure(toolConfig({ approvals: [{ tools: ["fail404"], timeout_seconds: 600 }] }));
    const first = await rerun("rr-6", batch, { jobs: [body.jobs[0].job_id], wait: false });
    expect(first.body.jobs[0]).toMatchObject({ waiting_for: "approval" });
    const second = await rerun("rr-6", batch, { jobs: [body.jobs[0].job_id], wait: false });
    expect(second).toMatchObject({ status: 409, body: { error: { code: "rerun_running" } } });
    expect(second.body.error.message).toContain(first.body.batch_id);
    // Once that rerun ended, the batch may be rerun again.
    await api(`/v1/chats/rr-6/jobs/${first.body.jobs[0].job_id}/approval`, { body: { decision: "deny" } });
    expect((await rerun("rr-6", batch, { jobs: [body.jobs[0].job_id], wait: false })).status).toBe(200);
  });

  it("answers a request repeated under its Idempotency-Key with the first rerun", async () => {
    const { batch } = await failedBatch("rr-4");
    const headers = { "Idempotency-Key": "rerun-once" };
    const first = await rerun("rr-4", batch, {}, headers);
    const second = await rerun("rr-4", batch, {}, headers);
    expect(second.status).toBe(200);
    expect(second.body.batch_id).toBe(first.body.batch_id);
    expect(second.body.jobs.map((j: Job) => j.job_id)).toEqual(first.body.jobs.map((j: Job) => j.job_id));
  });

  it("refuses what it cannot rerun, saying what to do, and starts nothing", async () => {
    const { jobs, batch } = await failedBatch("rr-5");
    expect((await rerun("rr-5", "batch-nope")).body.error.code).toBe("unknown_batch");
    const stranger = await rerun("rr-5", batch, { jobs: ["job-nope"] });
    expect(stranger).toMatchObject({ status: 400, body: { error: { code: "unknown_job_ids" } } });
    const unnamed = await rerun("rr-5", batch, { tool_args: { [jobs[0]!.job_id]: { n: 3 } } });
    expect(unnamed).toMatchObject({ status: 400, body: { error: { code: "invalid_rerun" } } });
    expect(unnamed.body.error.message).toContain("add them to `jobs`");
    const malformed = await rerun("rr-5", batch, { jobs: "all" });
    expect(malformed.status).toBe(400);

    const done = await parallel("rr-5", { tool_calls: [call("echo")], timeout: 10 });
    const doneBatch = (await record("rr-5", done.body.jobs[0].job_id)).batch_id;
    const nothing = await rerun("rr-5", doneBatch);
    expect(nothing).toMatchObject({ status: 409, body: { error: { code: "nothing_to_rerun" } } });

    const running = await parallel("rr-5", { tool_calls: [call("hang"), call("fail404")], wait: false });
    const runningBatch = (await record("rr-5", running.body.jobs[0].job_id)).batch_id;
    const busy = await rerun("rr-5", runningBatch);
    expect(busy).toMatchObject({ status: 409, body: { error: { code: "batch_not_finished" } } });
    await parallel("rr-5", { action: "cancel", job_ids: [running.body.jobs[0].job_id] });
    const all = await json(await api("/v1/chats/rr-5/jobs"));
    expect(all.jobs.filter((j: Job) => j.rerun_of !== undefined)).toEqual([]);
  });
});
