/**
 * No head-of-line blocking (docs/api.md#tools-a-job-can-run): the consumer only hands jobs to their
 * runners, so a long job in one chat never holds up another chat's jobs, even
 * with one consumer batch in flight per queue as under `wrangler dev`.
 */
import { reset } from "cloudflare:test";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, configure, jobRow, parallel } from "../helpers";

beforeEach(() => configure());
afterEach(() => reset());

it("eight quick jobs in chat B finish while a long job in chat A is still running", async () => {
  const long = await parallel("chat-a", { tool_calls: [call("sleep", { ms: 4000 })], wait: false });
  const longId = long.body.jobs[0].job_id;
  const quick = await parallel("chat-b", {
    tool_calls: Array.from({ length: 8 }, (_, i) => call("echo", { i })),
    timeout: 3,
  });
  expect(quick.body.status).toBe("success");
  expect((await jobRow("chat-a", longId))?.state).toBe("running");
});
