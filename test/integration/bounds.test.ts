/**
 * Numbers past their bounds (docs/api.md#limits-and-bounds) are a 400 that names the bound and stores nothing, never
 * a deadline no Date can hold: that made job records answer 503 and every later alarm of the chat throw.
 * And no single timer row, whatever time it holds, can stop a chat's alarm.
 */
import { reset, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { Timers } from "../../durable-objects/chat/storage/timers";
import { api, call, chatObject, configure, json, parallel } from "../helpers";

afterEach(() => reset());

const HUGE = Number.MAX_SAFE_INTEGER;

describe("time limits past their bounds", () => {
  it("a limit of 2^53 - 1 seconds is refused, naming 30 days, and the stored limits stay", async () => {
    await configure();
    const before = await json(await api("/v1/config"));
    const res = await api("/v1/config", {
      method: "PATCH",
      body: { limits: { max_job_timeout_seconds: HUGE } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(res.status).toBe(400);
    const { error } = await json(res);
    expect(error.code).toBe("invalid_config");
    expect(error.message).toContain("limits.max_job_timeout_seconds");
    expect(error.message).toContain("2592000");
    expect(await json(await api("/v1/config"))).toEqual(before);
  });

  it("a job_timeout of 2^53 - 1 and a wait of 1e308 seconds are 400s that start nothing", async () => {
    await configure();
    const timeout = await parallel("bounds-1", { tool_calls: [call("echo")], job_timeout: HUGE });
    expect(timeout.status).toBe(400);
    expect(timeout.body.error.code).toBe("invalid_timeout");
    const wait = await parallel("bounds-1", { tool_calls: [call("wait", { seconds: 1e308 })] });
    expect(wait.status).toBe(400);
    expect(wait.body.error.message).toContain("2592000");
    expect((await api("/v1/chats/bounds-1")).status).toBe(404); // nothing was admitted, so no chat
  });
});

describe("the chat's alarm", () => {
  it("is never pointed at a time setAlarm refuses: such a row waits unarmed instead of stopping every other timer", async () => {
    await configure();
    await parallel("bounds-2", { tool_calls: [call("echo")] });
    const alarm = await runInDurableObject(chatObject("bounds-2"), async (_i, state) => {
      const timers = new Timers(state.storage.sql, state.storage);
      state.storage.sql.exec(`DELETE FROM timers`);
      timers.set("purge", "", 1e308);
      await timers.arm(); // threw before: setAlarm cannot take a date after 2189
      const unarmed = await state.storage.getAlarm();
      const soon = Date.now() + 60_000;
      timers.set("deliver", "", soon);
      await timers.arm();
      return { unarmed, armed: await state.storage.getAlarm(), soon };
    });
    expect(alarm.unarmed).toBeNull();
    expect(alarm.armed).toBe(alarm.soon);
  });
});
