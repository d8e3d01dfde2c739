/**
 * Traces (docs/api.md#traces), the pure parts: W3C context in and out, which traces are kept, the
 * spans built from a job's row, their OTLP encoding, and the exporter's grouping, retries, bounds
 * and redaction. The whole path, against a receiver that decodes what arrives, is
 * test/integration/traces.test.ts.
 */
import { describe, expect, it } from "vitest";
import {
  batchTrace,
  jobTraceInBatch,
  jobTraceOf,
  jobTraceUnder,
  readTraceHeaders,
  traceHeaders,
  type JobTrace,
} from "../../src/core/telemetry/trace-context";
import { batchSpan, chatSpan, cutContent, jobSpan, providerName, type SpanJob } from "../../src/core/telemetry/spans";
import { encodeSpans, resourceOf } from "../../src/core/telemetry/otlp";
import { configEgressProblems } from "../../src/core/egress/policy";
import {
  EXPORT_ATTEMPT_TIMEOUT_MS,
  EXPORT_RETRY_DELAYS_MS,
  HAND_OVER_LIMIT_MS,
  REPORT_EVERY_MS,
  MAX_WAITING_SPANS,
  SPANS_PER_REQUEST,
  TenantSpans,
  type ExportTally,
  type TelemetryTarget,
} from "../../src/core/telemetry/exporter";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";

describe("readTraceHeaders", () => {
  it("reads a sampled and an unsampled traceparent, with tracestate", () => {
    expect(readTraceHeaders(`00-${TRACE}-${SPAN}-01`, "rojo=00f067aa0ba902b7")).toEqual({
      trace_id: TRACE,
      span_id: SPAN,
      sampled: true,
      tracestate: "rojo=00f067aa0ba902b7",
    });
    expect(readTraceHeaders(`00-${TRACE}-${SPAN}-00`, undefined)?.sampled).toBe(false);
  });

  it("ignores what W3C says to ignore, so the request goes on as if it had none", () => {
    for (const bad of [
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}`,
      "",
    ])
      expect(readTraceHeaders(bad, undefined)).toBeUndefined();
    // A later version is read by its first four fields.
    expect(readTraceHeaders(`01-${TRACE}-${SPAN}-01-more`, undefined)?.trace_id).toBe(TRACE);
  });

  it("drops a tracestate past W3C's bounds, keeps the context", () => {
    const long = readTraceHeaders(`00-${TRACE}-${SPAN}-01`, `k=${"v".repeat(600)}`);
    expect(long).toEqual({ trace_id: TRACE, span_id: SPAN, sampled: true });
    const many = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",");
    expect(readTraceHeaders(`00-${TRACE}-${SPAN}-01`, many)?.tracestate).toBeUndefined();
  });
});

describe("the OTLP endpoint", () => {
  it("is held to the egress rules like every URL fanout calls", () => {
    const config = {
      tools: [],
      mcp_servers: [],
      llm: null,
      webhook: null,
      telegram: null,
      builtins: { http_request: { allowed_origins: [] } },
    };
    const at = (url: string) => ({ ...config, telemetry: { otlp: { url } } });
    expect(configEgressProblems(at("http://127.0.0.1:4318/v1/traces"), false)).toEqual([
      "telemetry.otlp.url must use https:",
    ]);
    expect(configEgressProblems(at("https://10.0.0.7/v1/traces"), false)).toEqual([
      "telemetry.otlp.url points at a non-public address (private)",
    ]);
    expect(configEgressProblems(at("https://api.honeycomb.io/v1/traces"), false)).toEqual([]);
  });
});

describe("batchTrace", () => {
  const settings = { capture_content: false, sample_ratio: 0.5 };
  const incoming = { trace_id: TRACE, span_id: SPAN, sampled: true };

  it("joins a sampled caller's trace, exported only with telemetry", () => {
    const withTelemetry = batchTrace(incoming, settings, () => 0.99)!;
    expect(withTelemetry).toMatchObject({ trace_id: TRACE, parent: SPAN, export: true, capture: false });
    expect(withTelemetry.batch_span).toMatch(/^[0-9a-f]{16}$/);
    expect(batchTrace(incoming, null)).toMatchObject({ trace_id: TRACE, export: false });
    // Without export a job keeps only what passing the context on needs, and so do its subagent's jobs.
    const passedOn = jobTraceInBatch(batchTrace({ ...incoming, tracestate: "a=b" }, null)!);
    expect(Object.keys(passedOn).sort()).toEqual(["p", "s", "t", "ts"]);
    expect(Object.keys(jobTraceUnder(passedOn)).sort()).toEqual(["p", "s", "t", "ts"]);
  });

  it("reads a stored context that is not one as none, so a job's reads never break on it", () => {
    expect(jobTraceOf({ trace: "{not json" })).toBeNull();
    expect(jobTraceOf({ trace: '{"x":1}' })).toBeNull();
    expect(jobTraceOf({ trace: null })).toBeNull();
    expect(jobTraceOf({ trace: JSON.stringify({ t: TRACE, s: SPAN, p: "" }) })).toMatchObject({ t: TRACE });
  });

  it("keeps no unsampled caller's trace, and starts none without telemetry", () => {
    expect(batchTrace({ ...incoming, sampled: false }, settings, () => 0)).toBeNull();
    expect(batchTrace(undefined, null, () => 0)).toBeNull();
  });

  it("samples the traces it starts by sample_ratio", () => {
    expect(batchTrace(undefined, settings, () => 0.49)).toMatchObject({ parent: "", export: true });
    expect(batchTrace(undefined, settings, () => 0.5)).toBeNull();
    expect(batchTrace(undefined, { ...settings, sample_ratio: 0 }, () => 0)).toBeNull();
  });

  it("gives each job a span of its own under the batch's, and a child's jobs one under their turn", () => {
    const batch = batchTrace({ ...incoming, tracestate: "a=b" }, { capture_content: true, sample_ratio: 1 })!;
    const job = jobTraceInBatch(batch);
    expect(job).toMatchObject({ t: TRACE, p: batch.batch_span, bp: SPAN, ts: "a=b", x: 1, c: 1 });
    const child = jobTraceUnder(job);
    expect(child).toMatchObject({ t: TRACE, p: job.s, ts: "a=b", x: 1, c: 1 });
    expect(child.bp).toBeUndefined();
    expect(child.s).not.toBe(job.s);
    expect(traceHeaders(job)).toEqual({ traceparent: `00-${TRACE}-${job.s}-01`, tracestate: "a=b" });
  });
});

const job = (over: Partial<SpanJob> = {}): SpanJob => ({
  job_id: "search-1",
  chat_id: "c1",
  batch_id: "batch-1",
  tool_name: "search",
  tool_call_id: "call_1",
  tool_args: '{"q":"x"}',
  kind: "tool",
  state: "success",
  created_at: 1_000,
  started_at: 4_000,
  completed_at: 5_000,
  attempt: 2,
  result: "found",
  error: null,
  context_id: null,
  usage: null,
  spec: null,
  waiting_for: null,
  read_only: 1,
  error_type: null,
  ...over,
});
const trace: JobTrace = { t: TRACE, s: "1111111111111111", p: "2222222222222222", bp: SPAN, x: 1 };

describe("jobSpan", () => {
  it("names a tool job's span as the GenAI conventions do, from acceptance to end, waits as events", () => {
    const span = jobSpan(job(), { ...trace, w: [["approval", 3_000]] });
    expect(span).toMatchObject({
      trace_id: TRACE,
      span_id: trace.s,
      parent_span_id: trace.p,
      name: "execute_tool search",
      kind: "internal",
      start_ms: 1_000,
      end_ms: 5_000,
    });
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "search",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
      "fanout.job_id": "search-1",
      "fanout.attempts": 2,
    });
    expect(span.error).toBeUndefined();
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(span.events).toEqual([
      {
        name: "fanout.wait",
        at_ms: 1_000,
        attributes: { "fanout.wait.reason": "approval", "fanout.wait.duration_ms": 2_000 },
      },
    ]);
  });

  it("marks a failure, and counts a wait the job ended in", () => {
    const span = jobSpan(
      job({
        state: "cancelled",
        started_at: null,
        completed_at: 9_000,
        error: "Parallel job was cancelled.",
        waiting_for: "flow",
      }),
      { ...trace, w: [["tier", 2_000]] },
    );
    expect(span.error).toBe("Parallel job was cancelled.");
    expect(span.attributes["error.type"]).toBe("cancelled");
    expect(
      span.events?.map((e) => [e.attributes["fanout.wait.reason"], e.attributes["fanout.wait.duration_ms"]]),
    ).toEqual([
      ["tier", 1_000],
      ["flow", 7_000],
    ]);
  });

  it("carries content only when asked for, cut to 32 KB on its way (the exporter cuts to 8 KB once redacted)", () => {
    const span = jobSpan(job({ result: "é".repeat(20_000) }), { ...trace, c: 1 });
    expect(span.attributes["gen_ai.tool.call.arguments"]).toBe('{"q":"x"}');
    const result = span.attributes["gen_ai.tool.call.result"] as string;
    expect(new TextEncoder().encode(result).length).toBe(32_768);
    expect(new TextEncoder().encode(cutContent(result)).length).toBe(8192);
    expect(cutContent("a".repeat(10))).toBe("a".repeat(10));
  });

  it("names a subordinate's span invoke_agent, with its child chat and usage", () => {
    const span = jobSpan(
      job({
        kind: "subordinate",
        tool_name: "spawn_task",
        context_id: "c1-sub",
        spec: JSON.stringify({ profile: "researcher" }),
        usage: JSON.stringify({ llm_calls: 2, prompt_tokens: 30, completion_tokens: 7, tool_calls: 1, subagents: 1 }),
      }),
      trace,
    );
    expect(span.name).toBe("invoke_agent researcher");
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "researcher",
      "gen_ai.agent.id": "c1-sub",
      "gen_ai.conversation.id": "c1-sub",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 7,
    });
  });
});

describe("batchSpan and chatSpan", () => {
  it("spans the batch from its first acceptance to its last end, under the caller's span", () => {
    const span = batchSpan([job(), job({ job_id: "b", created_at: 900, completed_at: 7_000 })], trace, "c1")!;
    expect(span).toMatchObject({
      span_id: trace.p,
      parent_span_id: SPAN,
      name: "fanout.batch",
      start_ms: 900,
      end_ms: 7_000,
      attributes: { "fanout.chat_id": "c1", "fanout.batch_id": "batch-1", "fanout.jobs": 2 },
    });
    expect(batchSpan([job()], { ...trace, bp: "" }, "c1")!.parent_span_id).toBeUndefined();
    // A child chat's batch has no span of its own: its jobs hang under the turn's.
    expect(batchSpan([job()], { t: TRACE, s: "1", p: "2" }, "c1")).toBeUndefined();
  });

  it("names a model request chat <model>, a child of its turn", () => {
    const span = chatSpan(
      {
        span_id: "3333333333333333",
        started_at: 10,
        ended_at: 20,
        provider: providerName("https://api.openai.com/v1"),
        request_model: "gpt-x",
        response_model: "gpt-x-2026",
        finish_reasons: ["tool_calls"],
        usage: { prompt_tokens: 5, completion_tokens: 3 },
      },
      trace,
    );
    expect(span).toMatchObject({ name: "chat gpt-x", kind: "client", parent_span_id: trace.s });
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-x",
      "gen_ai.response.model": "gpt-x-2026",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 5,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(providerName("http://127.0.0.1:8787/llm/v1")).toBe("127.0.0.1");
  });
});

describe("encodeSpans", () => {
  it("writes OTLP/JSON with hex ids, nanosecond times, kinds and status as OTLP has them", () => {
    const spans = [
      jobSpan(job({ state: "error", error: "tool says no" }), trace),
      chatSpan({ span_id: "3333333333333333", started_at: 10, ended_at: 20, provider: "p", request_model: "m" }, trace),
    ];
    const { body, contentType } = encodeSpans(spans, "http/json", resourceOf("acme"));
    expect(contentType).toBe("application/json");
    const decoded = JSON.parse(new TextDecoder().decode(body));
    const resource = decoded.resourceSpans[0].resource.attributes;
    expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "fanout" } });
    expect(resource).toContainEqual({ key: "fanout.tenant", value: { stringValue: "acme" } });
    const [tool, chat] = decoded.resourceSpans[0].scopeSpans[0].spans;
    expect(tool).toMatchObject({
      traceId: TRACE,
      spanId: trace.s,
      parentSpanId: trace.p,
      name: "execute_tool search",
      kind: 1,
      startTimeUnixNano: "1000000000",
      endTimeUnixNano: "5000000000",
      status: { code: 2, message: "tool says no" },
    });
    expect(chat.kind).toBe(3);
    const protobuf = encodeSpans(spans, "http/protobuf", resourceOf("acme"));
    expect(protobuf.contentType).toBe("application/x-protobuf");
    expect(protobuf.body.length).toBeGreaterThan(100);
  });
});

/** An exporter whose requests answer as `answers` says, one per request, recorded. */
function exporter(answers: (number | "network")[]) {
  const requests: { url: string; headers: Record<string, string>; spans: number; body: string }[] = [];
  const reports: ExportTally[] = [];
  const sleeps: number[] = [];
  const spans = new TenantSpans("acme", {
    async post(url, init) {
      const body = JSON.parse(new TextDecoder().decode(init.body as Uint8Array));
      requests.push({
        url,
        headers: init.headers as Record<string, string>,
        spans: body.resourceSpans[0].scopeSpans[0].spans.length,
        body: JSON.stringify(body),
      });
      const answer = answers.shift() ?? 200;
      if (answer === "network") throw new Error("Network connection lost.");
      return new Response(answer === 200 ? "" : "busy", { status: answer });
    },
    sleep: async (ms) => void sleeps.push(ms),
    now: () => 42,
    report: async (tally) => void reports.push(tally),
  });
  return { spans, requests, reports, sleeps };
}
const target: TelemetryTarget = {
  url: "https://otlp.example/v1/traces",
  protocol: "http/json",
  headers: { authorization: "Bearer sekrit-token-123" },
  secrets: ["sekrit-token-123"],
};
const many = (n: number) => Array.from({ length: n }, (_, i) => jobSpan(job({ job_id: `j${i}` }), trace));

describe("TenantSpans", () => {
  it("sends a hand-over's spans at most 512 a request, and reports them once", async () => {
    const { spans, requests, reports } = exporter([]);
    await spans.add(many(SPANS_PER_REQUEST + 10), target);
    expect(requests.map((r) => r.spans)).toEqual([SPANS_PER_REQUEST, 10]);
    expect(requests[0]!.headers).toMatchObject({
      authorization: "Bearer sekrit-token-123",
      "content-type": "application/json",
    });
    expect(reports).toEqual([{ exported: SPANS_PER_REQUEST + 10, dropped: 0, last_export_at: 42 }]);
  });

  it("retries a 429, a 5xx and a network error three times with backoff, then drops and counts", async () => {
    const ok = exporter([503, "network", 429]);
    await ok.spans.add(many(2), target);
    expect(ok.requests).toHaveLength(4);
    expect(ok.sleeps).toEqual([...EXPORT_RETRY_DELAYS_MS]);
    expect(ok.reports).toEqual([{ exported: 2, dropped: 0, last_export_at: 42 }]);

    const down = exporter([503, 503, 503, 503]);
    await down.spans.add(many(2), target);
    expect(down.requests).toHaveLength(4);
    expect(down.reports).toEqual([
      { exported: 0, dropped: 2, last_error: "Export to https://otlp.example failed: HTTP 503: busy" },
    ]);
  });

  it("drops at once on an answer trying again cannot change", async () => {
    const { spans, requests, reports } = exporter([400]);
    await spans.add(many(3), target);
    expect(requests).toHaveLength(1);
    expect(reports[0]).toMatchObject({ exported: 0, dropped: 3 });
  });

  it("keeps at most 10,000 spans waiting per tenant, dropping the oldest", async () => {
    const { spans, requests, reports } = exporter([]);
    // The first hand-over's first request is on its way (an await away) while the second arrives.
    const first = spans.add(many(MAX_WAITING_SPANS), target);
    expect(spans.waiting).toBe(MAX_WAITING_SPANS - SPANS_PER_REQUEST);
    const second = spans.add(many(1_000), target);
    expect(spans.waiting).toBe(MAX_WAITING_SPANS - SPANS_PER_REQUEST);
    await Promise.all([first, second]);
    const dropped = reports.reduce((n, r) => n + r.dropped, 0);
    const exported = reports.reduce((n, r) => n + r.exported, 0);
    // Of the first hand-over's spans still waiting, the oldest 488 made room for the second's.
    expect(dropped).toBe(1_000 - SPANS_PER_REQUEST);
    expect(exported).toBe(MAX_WAITING_SPANS + 1_000 - dropped);
    expect(reports.find((r) => r.dropped > 0)!.last_error).toContain("more than 10000 were waiting");
    expect(requests.length).toBeGreaterThan(0);
    expect(spans.waiting).toBe(0);
  });

  it("redacts the tenant's secrets from content before it leaves, then cuts it to 8 KB", async () => {
    const { spans, requests } = exporter([]);
    const leaky = jobSpan(job({ result: "the key is sekrit-token-123" }), { ...trace, c: 1 });
    await spans.add([leaky], target);
    expect(requests[0]!.body).not.toContain("sekrit-token-123");
    expect(requests[0]!.body).toContain("the key is ***");
    // A secret across the 8 KB cut: whole when redacted, so no part of it leaves.
    const across = jobSpan(job({ result: `${"x".repeat(8185)}sekrit-token-123 and more` }), { ...trace, c: 1 });
    expect(across.attributes["gen_ai.tool.call.result"]).toContain("sekrit-token-123");
    await spans.add([across], target);
    const sent = JSON.parse(requests[1]!.body).resourceSpans[0].scopeSpans[0].spans[0].attributes.find(
      (a: { key: string }) => a.key === "gen_ai.tool.call.result",
    ).value.stringValue as string;
    expect(new TextEncoder().encode(sent).length).toBe(8192);
    // Redacted first, then cut: `x…x*** and`. Cut first, `x…xsekrit-` would have left part of it.
    expect(sent.endsWith("x*** and")).toBe(true);
    expect(sent).not.toMatch(/sekr|ekrit/);
  });

  it("reports what its hand-overs came to at most every 4 s, together", async () => {
    const clock = { now: 0 };
    const reports: ExportTally[] = [];
    const spans = new TenantSpans("acme", {
      post: async () => new Response(""),
      // A timer of the test's: the clock moves when it fires.
      sleep: (ms) => new Promise((r) => setTimeout(() => r(void (clock.now += ms)), 5)),
      now: () => clock.now,
      report: async (tally) => void reports.push(tally),
    });
    await spans.add(many(1), target);
    await Promise.all([spans.add(many(2), target), spans.add(many(3), target)]);
    expect(reports).toEqual([
      { exported: 1, dropped: 0, last_export_at: 0 },
      { exported: 5, dropped: 0, last_export_at: 0 },
    ]);
    expect(clock.now).toBe(2 * REPORT_EVERY_MS);
  });

  it("starts no try past its hand-over's limit: a hanging endpoint's spans are dropped in time", async () => {
    const clock = { now: 0 };
    const reports: ExportTally[] = [];
    const spans = new TenantSpans("acme", {
      // Every try hangs until its own 4 s limit.
      post: async () => {
        clock.now += EXPORT_ATTEMPT_TIMEOUT_MS;
        throw new DOMException("The operation timed out.", "TimeoutError");
      },
      sleep: async (ms) => void (clock.now += ms),
      now: () => clock.now,
      report: async (tally) => void reports.push(tally),
    });
    await spans.add(many(2), target);
    // Tries at 0, 5 and 11 s; a fourth would start at 19 s, past the 16 s limit.
    expect(clock.now).toBe(15_000);
    expect(clock.now).toBeLessThanOrEqual(HAND_OVER_LIMIT_MS);
    expect(reports).toEqual([
      { exported: 0, dropped: 2, last_error: expect.stringContaining("Export to https://otlp.example failed") },
    ]);
  });
});
