import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { call, configure, parallel } from "../helpers";

afterEach(() => reset());

describe("smoke", () => {
  it("runs an HTTP tool end to end and returns its result", async () => {
    await configure();
    const { status, body } = await parallel("chat-1", {
      tool_calls: [call("echo", { q: 1 }), call("wait", { seconds: 0.05 })],
    });
    expect(status).toBe(200);
    expect(body.status).toBe("success");
    expect(body.jobs.map((j: any) => j.state)).toEqual(["success", "success"]);
    expect(body.jobs[0].result).toBe('{"q":1}');
  });
});
