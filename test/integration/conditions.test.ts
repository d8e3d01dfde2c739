/**
 * Rules' conditions (docs/api.md#conditions) in the Workers runtime: an approval or flow rule with a
 * `when` applies only to the calls it is true for, and to every call it cannot be evaluated on; a
 * `when` that would not evaluate is refused when the configuration is written, with where.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { api, call, configure, json, parallel, toolConfig } from "../helpers";

afterEach(() => reset());

const PAYMENTS = "args.amount > 100 || !args.to.endsWith('@ourco.com')";

describe("a rule's `when`", () => {
  it("asks a person only for the calls it is true for, and for those it cannot be evaluated on", async () => {
    await configure(toolConfig({ approvals: [{ tools: ["other"], when: PAYMENTS, timeout_seconds: 600 }] }));
    const res = await parallel("when-appr", {
      tool_calls: [
        call("other", { amount: 50, to: "ann@ourco.com" }),
        call("other", { amount: 150, to: "ann@ourco.com" }),
        call("other", { amount: 5, to: "eve@elsewhere.com" }),
        // No amount: `args.amount > 100` is an error, and the right side is false: the rule applies.
        call("other", { to: "ann@ourco.com" }),
      ],
      wait: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.jobs.map((j: { waiting_for?: string }) => j.waiting_for ?? null)).toEqual([
      null,
      "approval",
      "approval",
      "approval",
    ]);
  });

  it("sees the batch's metadata, the calling agent and the tool", async () => {
    const when = "metadata.plan != 'pro' && agent == 'default' && tool == 'other'";
    await configure(toolConfig({ approvals: [{ tools: ["other", "echo"], when }] }));
    const free = await parallel(
      "when-meta-1",
      { tool_calls: [call("other", {})], wait: false },
      {
        query: `?metadata=${encodeURIComponent('{"plan":"pro"}')}`,
      },
    );
    expect(free.body.jobs[0].waiting_for).toBeUndefined();
    const held = await parallel(
      "when-meta-2",
      { tool_calls: [call("other", {}), call("echo", {})], wait: false },
      {
        query: `?metadata=${encodeURIComponent('{"plan":"free"}')}`,
      },
    );
    expect(held.body.jobs.map((j: { waiting_for?: string }) => j.waiting_for ?? null)).toEqual(["approval", null]);
  });

  it("limits under a flow rule only the calls it is true for", async () => {
    await configure(
      toolConfig({
        flow: [{ name: "long", tools: ["sleep"], when: "args.ms > 100", concurrency: 1, on_limit: "reject" }],
      }),
    );
    const res = await parallel("when-flow", {
      tool_calls: [
        call("sleep", { ms: 400 }),
        call("sleep", { ms: 400 }),
        call("sleep", { ms: 10 }),
        call("sleep", { ms: 10 }),
      ],
      timeout: 20,
    });
    const states = res.body.jobs.map((j: { state: string }) => j.state);
    expect(states.slice(2)).toEqual(["success", "success"]);
    expect(states.slice(0, 2).sort()).toEqual(["error", "success"]);
  });

  it("is refused at PUT and PATCH when it would not evaluate, naming the rule and the character", async () => {
    const syntax = await api("/v1/config", {
      method: "PUT",
      body: toolConfig({ approvals: [{ tools: ["echo"] }, { tools: ["other"], when: "args.amount >" }] }),
    });
    expect(syntax.status).toBe(400);
    const error = (await json(syntax)).error;
    expect(error.code).toBe("invalid_config");
    expect(error.message).toContain("approvals.1.when: Unexpected token: EOF at character 14");

    await configure(toolConfig());
    const types = await api("/v1/config", {
      method: "PATCH",
      body: { flow: [{ name: "f", tools: ["echo"], concurrency: 1, when: "tool > 5" }] },
    });
    expect(types.status).toBe(400);
    expect((await json(types)).error.message).toContain("flow.0.when: no such overload: string > int at character 1");
    const unbounded = await api("/v1/config", {
      method: "PATCH",
      body: { approvals: [{ tools: ["echo"], when: "args.list.exists(x, x in args.list)" }] },
    });
    expect(unbounded.status).toBe(400);
    expect((await json(unbounded)).error.message).toContain("approvals.0.when: `args` inside all/exists");
    expect((await json(await api("/v1/config"))).approvals).toEqual([]);
  });
});
