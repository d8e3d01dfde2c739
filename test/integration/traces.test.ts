/**
 * Traces (docs/api.md#traces), end to end: a bot's `traceparent` in, spans out to a real OTLP
 * receiver that decodes them with the OpenTelemetry libraries (test/setup/otlp-receiver.ts), in
 * both protocols; context passed on to tools, MCP servers and the model; `trace_id` on answers,
 * records and events; subagents two levels deep; a restart mid-batch; a failing endpoint; two
 * tenants.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evictDurableObject, reset } from "cloudflare:test";
import { TEST_KEYS } from "../setup/bindings";
import type { ReceivedSpan } from "../setup/otlp-receiver";
import { eventually } from "../eventually";
import {
  agentConfig,
  api,
  chatObject,
  configure,
  json,
  llmRequests,
  parallel,
  scriptLlm,
  toolCalls,
  toolConfig,
  toolServer,
} from "../helpers";
import { forgetTraceExports } from "../../src/edge/telemetry/trace-export";

afterEach(async () => {
  forgetTraceExports();
  await reset();
});

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const WEBHOOK_SECRET = "whsec_dGVzdC1zZWNyZXQtZm9yLXdlYmhvb2tz";
const CALLER_SPAN = "00f067aa0ba902b7";
const traceparent = (flags = "01", trace = TRACE) => `00-${trace}-${CALLER_SPAN}-${flags}`;

/** A sink of the receiver's of this test's own, and the telemetry config that sends there. */
function sink(name: string, more: Record<string, unknown> = {}) {
  const url = `${toolServer()}/otlp/${name}/v1/traces`;
  return {
    url,
    telemetry: { otlp: { url, headers: { "x-honeycomb-team": "hc-secret-key-1234" }, ...more } },
    async received(): Promise<{
      requests: { protocol: string; headers: Record<string, string>; status: number; spans: number }[];
      spans: ReceivedSpan[];
    }> {
      return (await fetch(`${toolServer()}/__otlp/${name}`)).json();
    },
  };
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe("a batch with the bot's traceparent", () => {
  let otlp: ReturnType<typeof sink>;
  beforeEach(async () => {
    otlp = sink(`batch-${Math.random().toString(36).slice(2)}`);
    await configure(toolConfig({ telemetry: otlp.telemetry }));
  });

  it("becomes a fanout.batch span under the caller's span, one execute_tool span per job, in one export", async () => {
    const { status, body } = await parallel(
      "tr-1",
      {
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "echo", arguments: '{"x":1}' } },
          { id: "call_b", type: "function", function: { name: "refuse", arguments: "{}" } },
        ],
      },
      { headers: { traceparent: traceparent(), tracestate: "vendor=abc" } },
    );
    expect(status).toBe(200);
    expect(body.trace_id).toBe(TRACE);

    const { spans, requests } = await eventually(async () => {
      const got = await otlp.received();
      return got.spans.length >= 3 && got;
    });
    expect(spans).toHaveLength(3);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ protocol: "http/protobuf", status: 200, spans: 3 });
    expect(requests[0]!.headers["x-honeycomb-team"]).toBe("hc-secret-key-1234");
    expect(requests[0]!.headers["content-type"]).toBe("application/x-protobuf");

    const [batch] = byName(spans, "fanout.batch");
    expect(batch).toMatchObject({ trace_id: TRACE, parent_span_id: CALLER_SPAN, kind: 1, scope: "fanout" });
    expect(batch!.attributes).toMatchObject({ "fanout.chat_id": "tr-1", "fanout.jobs": 2 });
    expect(batch!.resource).toMatchObject({ "service.name": "fanout", "fanout.tenant": "acme" });

    const [echo] = byName(spans, "execute_tool echo");
    expect(echo).toMatchObject({ trace_id: TRACE, parent_span_id: batch!.span_id, kind: 1, status: { code: 0 } });
    expect(echo!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "gen_ai.tool.call.id": "call_a",
      "gen_ai.tool.type": "function",
      "fanout.job_id": body.jobs[0].job_id,
      "fanout.attempts": 1,
    });
    // Content only when asked for.
    expect(echo!.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(echo!.start_ms).toBeLessThanOrEqual(echo!.end_ms);
    expect(batch!.start_ms).toBeLessThanOrEqual(echo!.start_ms);
    expect(batch!.end_ms).toBeGreaterThanOrEqual(echo!.end_ms);

    const [refused] = byName(spans, "execute_tool refuse");
    expect(refused!.status).toEqual({ code: 2, message: "tool says no" });
    expect(refused!.attributes["error.type"]).toBe("tool_error"); // the tool answered an error

    // The tool's request carried the job's span as its parent, and the caller's tracestate.
    const [sent] = await toolCalls(body.jobs[0].job_id);
    expect(sent!.headers.traceparent).toBe(`00-${TRACE}-${echo!.span_id}-01`);
    expect(sent!.headers.tracestate).toBe("vendor=abc");

    const record = await json(await api(`/v1/chats/tr-1/jobs/${body.jobs[0].job_id}`));
    expect(record.trace_id).toBe(TRACE);

    const telemetry = await eventually(async () => {
      const t = await json(await api("/v1/telemetry"));
      return t.exported >= 3 && t;
    });
    expect(telemetry.exported).toBe(3);
    expect(telemetry.dropped).toBe(0);
    expect(Date.parse(telemetry.last_export_at)).toBeGreaterThan(0);
  });
});

describe("which traces are kept", () => {
  it("without telemetry, passes a sampled caller's context on and exports nothing", async () => {
    await configure(toolConfig());
    const { body } = await parallel(
      "tr-plain",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent() } },
    );
    expect(body.trace_id).toBe(TRACE);
    const [sent] = await toolCalls(body.jobs[0].job_id);
    expect(sent!.headers.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(sent!.headers.traceparent).not.toContain(CALLER_SPAN);
    expect(await json(await api("/v1/telemetry"))).toEqual({ exported: 0, dropped: 0 });
  });

  it("keeps no unsampled caller's trace: no trace_id, no context passed on, no span", async () => {
    const otlp = sink("unsampled");
    await configure(toolConfig({ telemetry: otlp.telemetry }));
    const { body } = await parallel(
      "tr-unsampled",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent("00") } },
    );
    expect(body).not.toHaveProperty("trace_id");
    const [sent] = await toolCalls(body.jobs[0].job_id);
    expect(sent!.headers.traceparent).toBeUndefined();
    const record = await json(await api(`/v1/chats/tr-unsampled/jobs/${body.jobs[0].job_id}`));
    expect(record).not.toHaveProperty("trace_id");
  });

  it("starts a trace of its own by sample_ratio, as a root batch span, over OTLP/JSON", async () => {
    const otlp = sink("own-json", { protocol: "http/json" });
    await configure(toolConfig({ telemetry: { ...otlp.telemetry, sample_ratio: 1 } }));
    const { body } = await parallel("tr-own", { tool_calls: [{ name: "echo", args: {} }] });
    expect(body.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const { spans, requests } = await eventually(async () => {
      const got = await otlp.received();
      return got.spans.length >= 2 && got;
    });
    expect(requests[0]!.protocol).toBe("http/json");
    const [batch] = byName(spans, "fanout.batch");
    expect(batch).toMatchObject({ trace_id: body.trace_id, parent_span_id: null });
    expect(byName(spans, "execute_tool echo")[0]!.parent_span_id).toBe(batch!.span_id);

    await configure(toolConfig({ telemetry: { ...otlp.telemetry, sample_ratio: 0 } }));
    const dropped = await parallel("tr-own", { tool_calls: [{ name: "echo", args: {} }] });
    expect(dropped.body).not.toHaveProperty("trace_id");
    // A caller's sampled context is followed whatever the ratio.
    const followed = await parallel(
      "tr-own",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent() } },
    );
    expect(followed.body.trace_id).toBe(TRACE);
  });

  it("carries trace_id on batch.finished and the job events of the batch", async () => {
    const otlp = sink("events");
    const inbox = `tr-events-${Math.random().toString(36).slice(2)}`;
    await configure(
      toolConfig({
        telemetry: otlp.telemetry,
        webhook: { url: `${toolServer()}/hooks/${inbox}`, secret: WEBHOOK_SECRET },
      }),
    );
    const { body } = await parallel(
      "tr-events",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent() } },
    );
    expect(body.trace_id).toBe(TRACE);
    const events = await eventually(async () => {
      const got = (await (await fetch(`${toolServer()}/__hooks/received?inbox=${inbox}`)).json()) as { body: string }[];
      const parsed = got.map((d) => JSON.parse(d.body) as { type: string; data: Record<string, any> });
      return parsed.some((e) => e.type === "batch.finished") && parsed;
    });
    for (const type of ["job.started", "job.finished", "batch.finished"]) {
      const event = events.find((e) => e.type === type);
      expect(event?.data.trace_id, type).toBe(TRACE);
    }
    expect(events.find((e) => e.type === "batch.finished")!.data.results.trace_id).toBe(TRACE);
  });
});

describe("waits and content", () => {
  it("records the waits before a call as fanout.wait events, and content only when asked for, redacted", async () => {
    const otlp = sink("waits");
    const base = toolConfig();
    const writer = (name: string, path: string) => ({
      name,
      url: `${toolServer()}${path}`,
      secret: "whsec_dGVzdC1zZWNyZXQtZm9yLXRvb2xz",
    });
    await configure({
      ...base,
      tools: [...base.tools, writer("sleep_write", "/sleep"), writer("echo_write", "/echo")],
      telemetry: { ...otlp.telemetry, capture_content: true },
    });
    // /tool-calls runs side-effecting calls one after another: the second waits for its tier.
    const res = await api("/v1/chats/tr-waits/tool-calls", {
      body: {
        tool_calls: [
          { id: "w1", type: "function", function: { name: "sleep_write", arguments: '{"ms":400}' } },
          { id: "w2", type: "function", function: { name: "echo_write", arguments: '{"key":"hc-secret-key-1234"}' } },
        ],
      },
      headers: { traceparent: traceparent() },
    });
    expect(res.status).toBe(200);
    expect((await json(res)).trace_id).toBe(TRACE);
    const { spans } = await eventually(async () => {
      const got = await otlp.received();
      return got.spans.length >= 3 && got;
    });
    const echo = byName(spans, "execute_tool echo_write")[0]!;
    const tier = echo.events.find((e) => e.attributes["fanout.wait.reason"] === "tier");
    expect(tier?.name).toBe("fanout.wait");
    expect(tier!.attributes["fanout.wait.duration_ms"]).toBeGreaterThanOrEqual(350);
    expect(byName(spans, "execute_tool sleep_write")[0]!.events).toEqual([]);
    // The tenant's stored secret, sent in the arguments and echoed by the tool, is taken out of the content.
    expect(echo.attributes["gen_ai.tool.call.arguments"]).toBe('{"key":"***"}');
    expect(String(echo.attributes["gen_ai.tool.call.result"])).toContain("***");
    expect(String(echo.attributes["gen_ai.tool.call.result"])).not.toContain("hc-secret-key-1234");
    const sleep = byName(spans, "execute_tool sleep_write")[0]!;
    expect(sleep.attributes["gen_ai.tool.call.result"]).toBe("slept 400");
  });
});

describe("context passed on", () => {
  it("reaches an MCP server in params._meta.traceparent and the header", async () => {
    const otlp = sink("mcp");
    const docs = { name: "docs", url: `${toolServer()}/mcp/tr-mcp`, headers: {} };
    await configure(toolConfig({ telemetry: otlp.telemetry, mcp_servers: [docs] }));
    const { body } = await parallel(
      "tr-mcp",
      { tool_calls: [{ name: "docs__search", args: { query: "alarms" } }] },
      { headers: { traceparent: traceparent() } },
    );
    expect(body.jobs[0].state).toBe("success");
    const { spans } = await eventually(async () => {
      const got = await otlp.received();
      return got.spans.length >= 2 && got;
    });
    const search = byName(spans, "execute_tool docs__search")[0]!;
    const [sent] = (await (await fetch(`${toolServer()}/__mcp/calls?instance=tr-mcp`)).json()) as {
      traceparent?: string;
      meta_traceparent?: string;
    }[];
    expect(sent!.meta_traceparent).toBe(`00-${TRACE}-${search.span_id}-01`);
    expect(sent!.traceparent).toBe(`00-${TRACE}-${search.span_id}-01`);
  });
});

describe("subagents", () => {
  it("trace two levels deep: invoke_agent spans parent their subagent's chat and tool spans", async () => {
    const otlp = sink("agents");
    await configure(agentConfig("m-trace-deep", { telemetry: otlp.telemetry }));
    await scriptLlm("m-trace-deep", [
      { tool_calls: [{ name: "spawn_task", arguments: { task: "Go one level deeper.", wait: true } }] },
      { tool_calls: [{ name: "echo", arguments: { from: "grandchild" } }] },
      { content: "grandchild answer" },
      { content: "child answer" },
    ]);
    const { body } = await parallel(
      "tr-deep",
      { tool_calls: [{ name: "call_subordinate", args: { message: "Delegate.", reset: true } }], timeout: 20 },
      { headers: { traceparent: traceparent() } },
    );
    expect(body.jobs[0]).toMatchObject({ state: "success", result: "child answer" });
    const { spans } = await eventually(async () => {
      const got = await otlp.received();
      return byName(got.spans, "chat m-trace-deep").length >= 4 && byName(got.spans, "fanout.batch").length >= 1 && got;
    }, 15_000);
    expect(new Set(spans.map((s) => s.trace_id))).toEqual(new Set([TRACE]));

    const [batch] = byName(spans, "fanout.batch");
    const agents = byName(spans, "invoke_agent default");
    expect(agents).toHaveLength(2);
    const top = agents.find((a) => a.parent_span_id === batch!.span_id)!;
    const nested = agents.find((a) => a.parent_span_id === top.span_id)!;
    expect(top.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "default",
      "gen_ai.agent.id": body.jobs[0].context_id,
      "gen_ai.conversation.id": body.jobs[0].context_id,
      "gen_ai.usage.input_tokens": 40,
      "gen_ai.usage.output_tokens": 20,
    });
    expect(nested).toBeDefined();

    const chats = byName(spans, "chat m-trace-deep");
    // The child asked twice (spawn, answer), the grandchild twice (echo, answer).
    expect(chats.filter((c) => c.parent_span_id === top.span_id)).toHaveLength(2);
    expect(chats.filter((c) => c.parent_span_id === nested.span_id)).toHaveLength(2);
    expect(chats[0]).toMatchObject({ kind: 3 });
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "127.0.0.1",
      "gen_ai.request.model": "m-trace-deep",
      "gen_ai.response.model": "m-trace-deep",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
    });
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toContainEqual(["tool_calls"]);
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toContainEqual(["stop"]);

    const echo = byName(spans, "execute_tool echo")[0]!;
    expect(echo.parent_span_id).toBe(nested.span_id);

    // Each model request carried its own chat span as its parent.
    const requests = (await llmRequests("m-trace-deep")) as unknown as {
      received_trace: { traceparent?: string; tracestate?: string };
    }[];
    const sentSpans = requests.map((r) => String(r.received_trace.traceparent).split("-")[2]);
    expect(new Set(sentSpans)).toEqual(new Set(chats.map((c) => c.span_id)));
    for (const r of requests) expect(r.received_trace.tracestate).toBeUndefined();
  });
});

describe("faults", () => {
  it("a chat restarted mid-batch still sends every span, with the job's real times", async () => {
    const otlp = sink("restart");
    await configure(toolConfig({ telemetry: otlp.telemetry }));
    const { body } = await parallel(
      "tr-restart",
      {
        tool_calls: [
          { name: "sleep", args: { ms: 50 } },
          { name: "sleep", args: { ms: 1500 } },
        ],
        wait: false,
      },
      { headers: { traceparent: traceparent() } },
    );
    await eventually(
      async () => (await json(await api(`/v1/chats/tr-restart/jobs/${body.jobs[0].job_id}`))).state === "success",
    );
    await evictDurableObject(chatObject("tr-restart"));
    const { spans } = await eventually(async () => {
      const got = await otlp.received();
      return got.spans.length >= 3 && got;
    });
    expect(spans).toHaveLength(3);
    const records = await Promise.all(
      body.jobs.map(async (j: { job_id: string }) => json(await api(`/v1/chats/tr-restart/jobs/${j.job_id}`))),
    );
    for (const record of records) {
      const span = spans.find((s) => s.attributes["fanout.job_id"] === record.job_id)!;
      expect(span.start_ms).toBe(Date.parse(record.created_at));
      expect(span.end_ms).toBe(Date.parse(record.completed_at));
      expect(span.status.code).toBe(0);
    }
    const [batch] = byName(spans, "fanout.batch");
    expect(batch!.end_ms).toBe(Math.max(...records.map((r) => Date.parse(r.completed_at))));
  });

  it("an endpoint that keeps failing: retried 3 times, then dropped and counted; the jobs never notice", async () => {
    const failing = `${toolServer()}/otlp/failing/status/503/v1/traces`;
    await configure(
      toolConfig({ telemetry: { otlp: { url: failing, headers: { authorization: "Bearer otlp-key-5678" } } } }),
    );
    const { body } = await parallel(
      "tr-fail",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent() } },
    );
    expect(body.jobs[0].state).toBe("success");
    const status = await eventually(async () => {
      const t = await json(await api("/v1/telemetry"));
      return t.dropped > 0 && t;
    }, 15_000);
    // (`exported` may hold an earlier test's spans: reports come up to 4 s after their export.)
    expect(status.dropped).toBe(2);
    expect(status.last_error).toContain("HTTP 503");
    expect(status.last_error).not.toContain("otlp-key-5678");
    const { requests } = (await (await fetch(`${toolServer()}/__otlp/failing`)).json()) as { requests: unknown[] };
    expect(requests).toHaveLength(4);
  });

  it("sends each tenant's spans to its own endpoint only", async () => {
    const acme = sink("tenant-acme");
    const globex = sink("tenant-globex");
    await configure(toolConfig({ telemetry: acme.telemetry }));
    await configure(toolConfig({ telemetry: globex.telemetry }), TEST_KEYS.globex);
    const other = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    await parallel("tr-two", { tool_calls: [{ name: "echo", args: {} }] }, { headers: { traceparent: traceparent() } });
    await parallel(
      "tr-two",
      { tool_calls: [{ name: "echo", args: {} }] },
      { headers: { traceparent: traceparent("01", other) }, key: TEST_KEYS.globex },
    );
    type Received = Awaited<ReturnType<typeof acme.received>>;
    const [a, g] = await eventually<Received[]>(async () => {
      const got = [await acme.received(), await globex.received()];
      return got.every((r) => r.spans.length >= 2) && got;
    });
    expect(new Set(a!.spans.map((s) => s.trace_id))).toEqual(new Set([TRACE]));
    expect(new Set(a!.spans.map((s) => s.resource["fanout.tenant"]))).toEqual(new Set(["acme"]));
    expect(new Set(g!.spans.map((s) => s.trace_id))).toEqual(new Set([other]));
    expect(new Set(g!.spans.map((s) => s.resource["fanout.tenant"]))).toEqual(new Set(["globex"]));
    expect((await json(await api("/v1/telemetry", { key: TEST_KEYS.globex }))).exported).toBe(2);
  });
});

describe("the telemetry config", () => {
  it("keeps its headers as secrets bound to the endpoint's origin, and says what a wrong URL must be", async () => {
    const otlp = sink("config");
    const stored = await configure(toolConfig({ telemetry: otlp.telemetry }));
    expect(stored.telemetry).toEqual({
      otlp: { url: otlp.url, headers: { "x-honeycomb-team": "***" }, protocol: "http/protobuf" },
      capture_content: false,
      sample_ratio: 1,
    });
    const moved = await api("/v1/config", {
      method: "PATCH",
      body: { telemetry: { otlp: { url: "https://otlp.elsewhere.example/v1/traces" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(moved.status).toBe(400);
    expect(await json(moved)).toMatchObject({
      error: {
        code: "secret_required",
        message: expect.stringContaining("telemetry.otlp.headers.x-honeycomb-team must be sent again"),
      },
    });
    const wrong = await api("/v1/config", {
      method: "PUT",
      body: toolConfig({ telemetry: { otlp: { url: `${toolServer()}/otlp/x` }, sample_ratio: 2 } }),
    });
    expect(wrong.status).toBe(400);
    const problems = (await json(wrong)).error.problems as string[];
    expect(problems).toContainEqual(
      expect.stringMatching(/^telemetry\.otlp\.url: must be the OTLP\/HTTP traces endpoint/),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^telemetry\.sample_ratio: /));
    // Nothing changed: the stored header still goes to its own endpoint.
    expect((await json(await api("/v1/config"))).telemetry.otlp.url).toBe(otlp.url);
  });
});
