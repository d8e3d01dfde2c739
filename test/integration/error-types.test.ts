/**
 * Why a job did not succeed (docs/api.md#why-a-job-failed), in the Workers runtime: each end names
 * its `error_type` where it happens, and `retryable` follows; both are on the snapshot, the record,
 * the `/tool-calls` result and `job.finished`.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, configure, json, parallel, toolConfig } from "../helpers";

afterEach(() => reset());

const record = async (chat: string, jobId: string) => json(await api(`/v1/chats/${chat}/jobs/${jobId}`));
const ended = async (chat: string, calls: unknown[], more: Record<string, unknown> = {}) => {
  const { body } = await parallel(chat, { tool_calls: calls, timeout: 30, ...more });
  return body.jobs as { job_id: string; tool_name: string; state: string; error_type?: string; retryable?: boolean }[];
};

describe("error_type and retryable", () => {
  it("say what the tool's answer meant: its error, a status, a broken side effect, the deadline", async () => {
    await configure(toolConfig());
    const jobs = await ended(
      "et-1",
      [call("refuse"), call("fail404"), call("fail500"), call("drop_write"), call("hang")],
      { job_timeout: 3 },
    );
    const by = Object.fromEntries(jobs.map((j) => [j.tool_name, j]));
    expect(by.refuse).toMatchObject({ state: "error", error_type: "tool_error", retryable: false });
    expect(by.fail404).toMatchObject({ state: "error", error_type: "http_status", retryable: false });
    expect(by.fail500).toMatchObject({ state: "error", error_type: "http_status", retryable: true });
    expect(by.drop_write).toMatchObject({ state: "error", error_type: "outcome_unknown", retryable: false });
    expect(by.hang).toMatchObject({ state: "timeout", error_type: "timeout", retryable: true });
    const full = await record("et-1", by.fail404!.job_id);
    expect(full).toMatchObject({ error_type: "http_status", retryable: false });
  });

  it("say what fanout or a person decided: cancelled, denied; and nothing on a success", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["other"], timeout_seconds: 600 }] }));
    const started = await ended("et-2", [call("other"), call("hang"), call("echo")], { wait: false });
    const [held, hanging, echo] = started;
    await api(`/v1/chats/et-2/jobs/${held!.job_id}/approval`, { body: { decision: "deny" } });
    await parallel("et-2", { action: "cancel", job_ids: [hanging!.job_id] });
    const { body } = await parallel("et-2", { job_ids: [held!.job_id, hanging!.job_id, echo!.job_id], timeout: 10 });
    const by = Object.fromEntries(body.jobs.map((j: { tool_name: string }) => [j.tool_name, j]));
    expect(by.other).toMatchObject({ state: "error", error_type: "denied", retryable: false });
    expect(by.hang).toMatchObject({ state: "cancelled", error_type: "cancelled", retryable: false });
    expect(by.echo.state).toBe("success");
    expect(by.echo).not.toHaveProperty("error_type");
    expect(await record("et-2", echo!.job_id)).toMatchObject({ error_type: null, retryable: null });
  });

  it("stand beside the result of a /tool-calls call", async () => {
    await configure(toolConfig());
    const res = await api("/v1/chats/et-3/tool-calls", {
      body: { tool_calls: [{ id: "c1", type: "function", function: { name: "fail404", arguments: "{}" } }] },
    });
    const { results } = await json(res);
    expect(results[0]).toMatchObject({ state: "error", error_type: "http_status", retryable: false });
  });
});
