/** Which jobs a rerun runs again (docs/api.md#rerun), pure. */
import { describe, expect, it } from "vitest";
import { rerunBody } from "../../src/core/api/rerun";
import { ApiError } from "../../src/core/http/errors";
import { planRerun, type RerunSource } from "../../src/core/jobs/rerun";

const job = (job_id: string, idx: number, over: Partial<RerunSource>): RerunSource => ({
  job_id,
  idx,
  tool_name: "t",
  tool_args: '{"q":1}',
  tool_call_id: null,
  state: "success",
  error: null,
  error_type: null,
  read_only: true,
  timeout_seconds: 60,
  metadata: null,
  ...over,
});
const batch = [
  job("ok", 0, {}),
  job("slow", 1, { state: "timeout", error: "deadline", error_type: "timeout" }),
  job("pay", 2, { state: "error", error: "Outcome unknown", error_type: "outcome_unknown", read_only: false }),
  job("gone", 3, { state: "error", error: "HTTP 404: no", error_type: "http_status" }),
];
const plan = (body: unknown) => planRerun("batch-1", batch, rerunBody.parse(body));
const refusal = (body: unknown) => {
  try {
    plan(body);
  } catch (e) {
    return e instanceof ApiError ? [e.status, e.code] : e;
  }
  return null;
};

describe("planning a rerun", () => {
  it("takes by default the jobs that failed and may safely run again", () => {
    const { rerun, carried } = plan(undefined);
    expect(rerun.map((j) => j.job_id)).toEqual(["slow"]);
    expect(carried).toEqual(["ok", "pay", "gone"]);
  });

  it("adds the jobs named, a side effect of unknown outcome or a success included, in the batch's order", () => {
    const { rerun, carried } = plan({ jobs: ["pay", "ok"], tool_args: { ok: { q: 2 } } });
    expect(rerun.map((j) => [j.job_id, j.args])).toEqual([
      ["ok", { q: 2 }],
      ["slow", { q: 1 }],
      ["pay", { q: 1 }],
    ]);
    expect(carried).toEqual(["gone"]);
  });

  it("refuses ids of other batches, arguments for a job that would not run, and a batch with nothing to run", () => {
    expect(refusal({ jobs: ["other"] })).toEqual([400, "unknown_job_ids"]);
    expect(refusal({ tool_args: { gone: {} } })).toEqual([400, "invalid_rerun"]);
    expect(() => planRerun("batch-2", [batch[0]!], rerunBody.parse({}))).toThrow(/name the jobs to rerun/);
  });
});
