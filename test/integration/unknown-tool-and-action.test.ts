/**
 * A wire rule a model acts on (SPEC §3.1): an unknown `action` with
 * `wait: false` returns at once, like `collect`.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { call, configure, parallel, toolServer } from "../helpers";

afterEach(() => reset());

const echoTool = () => ({ name: "echo", url: `${toolServer()}/echo`, read_only: true, parameters: { type: "object" } });

describe("an unknown action", () => {
  it("with wait:false returns at once like collect, leaving the named jobs running", async () => {
    await configure({ tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }] });
    const started = await parallel("u4", { tool_calls: [call("hang")], wait: false });
    const jobId = started.body.jobs[0].job_id;
    const t0 = Date.now();
    const { status, body } = await parallel("u4", { action: "check_later", wait: false, job_ids: [jobId], timeout: 30 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(status).toBe(200);
    expect(body.status).toBe("running");
    expect(body.jobs[0]).toMatchObject({ job_id: jobId, state: "running" });
    expect(body.wait_timeout).toBeUndefined(); // it never waited
    await parallel("u4", { action: "cancel", job_ids: [jobId] });
  });

  it("with wait:false starts its calls in the background and answers the started payload", async () => {
    await configure({ tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }] });
    const t0 = Date.now();
    const { body } = await parallel("u5", { action: "whenever", wait: "no", tool_calls: [call("hang")], timeout: 30 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(body.status).toBe("started");
    await parallel("u5", { action: "cancel", job_ids: [body.jobs[0].job_id] });
  });

  it("without wait:false still waits like await", async () => {
    await configure({ tools: [{ ...echoTool(), name: "hang", url: `${toolServer()}/hang` }], limits: { max_wait_seconds: 1 } });
    const started = await parallel("u6", { tool_calls: [call("hang")], wait: false });
    const { body } = await parallel("u6", { action: "check_later", job_ids: [started.body.jobs[0].job_id] });
    expect(body).toMatchObject({ status: "waiting", wait_timeout: true });
    await parallel("u6", { action: "cancel", job_ids: [started.body.jobs[0].job_id] });
  });
});
