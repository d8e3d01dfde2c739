/**
 * One job's row, and its log row, stay under SQLite's 2 MB, which production enforces and local
 * workerd does not: a call's arguments are bounded, and its result or error gets the room its
 * arguments leave, whatever `max_stored_result_bytes` and `max_body_bytes` allow.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSchema } from "../../durable-objects/chat/storage/schema";
import { Turns } from "../../durable-objects/chat/storage/turns";
import { MAX_CALL_ARGS_BYTES, MAX_MESSAGE_BYTES, STORED_ROW_BYTES } from "../../src/core/storage/row-bounds";
import { agentConfig, call, chatObject, configure, parallel, scriptLlm, toolConfig } from "../helpers";

afterEach(async () => {
  await reset();
});

const roomiest = toolConfig({
  limits: { max_body_bytes: 655_360, max_stored_result_bytes: 2_000_000, max_response_bytes: 4_194_304 },
});

/** Arguments for `tool` whose JSON takes exactly `bytes` bytes. */
function argsOf(bytes: number, extra: Record<string, unknown>): Record<string, unknown> {
  const base = JSON.stringify({ ...extra, pad: "" }).length;
  return { ...extra, pad: "p".repeat(bytes - base) };
}

async function rowBytes(chat: string, jobId: string) {
  return runInDurableObject(chatObject(chat), (_i, state) => {
    const sql = state.storage.sql;
    const job = sql
      .exec<{ n: number }>(
        `SELECT length(CAST(tool_args AS BLOB)) + coalesce(length(CAST(result AS BLOB)), 0) + coalesce(length(CAST(error AS BLOB)), 0)
           + coalesce(length(CAST(spec AS BLOB)), 0) + coalesce(length(CAST(content AS BLOB)), 0) AS n FROM jobs WHERE job_id = ?`,
        jobId,
      )
      .one().n;
    // A job's log row is read off this row (docs/api.md#log-rows): it has no stored row of its own to bound.
    return { job };
  });
}

describe("rows under 2 MB", () => {
  it("accepts a call whose arguments take exactly the bound, and refuses one byte more", async () => {
    await configure(roomiest);
    const fits = await parallel("rows-a", { tool_calls: [call("echo", argsOf(MAX_CALL_ARGS_BYTES, {}))], wait: false });
    expect(fits.status).toBe(200);
    const over = await parallel("rows-a", { tool_calls: [call("echo", argsOf(MAX_CALL_ARGS_BYTES + 1, {}))] });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      code: "invalid_tool_calls",
      message: `tool_calls[0] is not a valid tool call: its arguments take ${MAX_CALL_ARGS_BYTES + 1} bytes as JSON; one call takes at most ${MAX_CALL_ARGS_BYTES}`,
    });
  });

  it("cuts a large result to the room the largest arguments leave, in the job row and the log row", async () => {
    await configure(roomiest);
    const { body } = await parallel("rows-b", {
      tool_calls: [call("big", argsOf(MAX_CALL_ARGS_BYTES, { bytes: 3_000_000 }))],
    });
    expect(body.jobs[0]).toMatchObject({ state: "success", result_truncated: true });
    const bytes = await rowBytes("rows-b", body.jobs[0].job_id);
    expect(bytes.job).toBeLessThanOrEqual(STORED_ROW_BYTES);
    expect(bytes.job).toBeGreaterThan(STORED_ROW_BYTES - 100);
  });

  it("cuts a large error text the same way", async () => {
    await configure(roomiest);
    const { body } = await parallel("rows-c", {
      tool_calls: [call("refuse", argsOf(MAX_CALL_ARGS_BYTES, { bytes: 3_000_000 }))],
    });
    expect(body.jobs[0].state).toBe("error");
    const bytes = await rowBytes("rows-c", body.jobs[0].job_id);
    expect(bytes.job).toBeLessThanOrEqual(STORED_ROW_BYTES);
  });

  it("ends a subordinate's job with an error when its model replies with more than a row can keep", async () => {
    await configure(agentConfig("m-rows-big"));
    // 1,000,001 characters and the two quotes of its JSON string.
    await scriptLlm("m-rows-big", [{ content: "y".repeat(1_000_001) }]);
    const { body } = await parallel("rows-d", {
      tool_calls: [call("spawn_task", { task: "write a lot" })],
      timeout: 20,
    });
    expect(body.jobs[0]).toMatchObject({
      state: "error",
      error: "The model's reply took 1000003 bytes; fanout keeps at most 1000000 per message.",
    });
  });

  it("cuts a loop message that JSON escaping would take past the bound, and says so", async () => {
    const stored = await runInDurableObject(chatObject("rows-e"), (_i, state) => {
      const sql = state.storage.sql;
      ensureSchema(sql);
      // 64 results of 16,000 quotes: 2 MB once escaped.
      const content = Array.from({ length: 64 }, () => '"'.repeat(16_000)).join("\n");
      new Turns(sql).append("turn-1", { role: "tool", tool_call_id: "c1", content }, Date.now());
      return sql.exec<{ n: number; body: string }>(`SELECT length(CAST(body AS BLOB)) AS n, body FROM messages`).one();
    });
    expect(stored.n).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(stored.n).toBeGreaterThan(MAX_MESSAGE_BYTES * 0.95);
    expect(JSON.parse(stored.body).content).toMatch(/\[cut: fanout keeps at most 1000000 bytes of one message\]$/);
  });
});
