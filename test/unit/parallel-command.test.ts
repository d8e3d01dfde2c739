import { describe, expect, it } from "vitest";
import { apiError } from "./fixtures";
import { configSchema, type TenantConfig, type TenantConfigInput } from "../../src/core/config/schema";
import { parseParallel, type ParallelCommand } from "../../src/core/jobs/parallel-command";
import { planToolCall, specNumbering } from "../../src/core/jobs/call-plan";
import { jobSpec } from "../../src/core/jobs/job-spec";
import { toolsForAgent } from "../../src/core/tools/catalog";
import { PatternMeter } from "../../src/core/json-schema/linear-patterns";

function makeConfig(extra: Partial<TenantConfigInput> = {}): TenantConfig {
  return configSchema.parse({
    tools: [
      { name: "echo", url: "https://tools.example/echo", read_only: true },
      {
        name: "search",
        url: "https://tools.example/search",
        timeout_seconds: 60,
        parameters: {
          type: "object",
          properties: { q: { type: "string" }, opts: { type: "object", properties: { n: { type: "integer" } } } },
          required: ["q"],
        },
      },
    ],
    agents: { researcher: { tools: ["search"] } },
    ...extra,
  });
}

const config = makeConfig();
const parse = (body: unknown, cfg: TenantConfig = config, agent = "default"): ParallelCommand =>
  parseParallel(body, cfg, agent);

const waitCall = (seconds = 1) => ({ tool_name: "wait", tool_args: { seconds } });
const echoCall = (args: Record<string, unknown> = {}) => ({ tool_name: "echo", tool_args: args });

const refusal = (body: unknown, cfg: TenantConfig = config, agent = "default") => {
  const e = apiError(() => parseParallel(body, cfg, agent));
  return { status: e.status, code: e.code, message: e.message };
};

describe("parseParallel: body", () => {
  it.each([[null], [[]], ["text"], [5], [[echoCall()]]])("refuses %j as not a JSON object", (body) => {
    expect(refusal(body)).toEqual({
      status: 400,
      code: "invalid_json",
      message: "Request body must be a JSON object.",
    });
  });

  it("unwraps a whole {tool_name:'parallel', tool_args} envelope", () => {
    const cmd = parse({
      tool_name: "parallel",
      tool_args: { tool_calls: [echoCall({ a: 1 })], wait: false, action: "start" },
    });
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["echo"]);
    expect(cmd.wait).toBe(false);
    expect(cmd.action).toBe("start");
  });

  it("accepts parallel_tool_calls as the envelope's tool name", () => {
    const cmd = parse({ tool_name: "parallel_tool_calls", tool_args: { tool_calls: [echoCall(), waitCall()] } });
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["echo", "wait"]);
  });

  it("does not unwrap an envelope naming another tool", () => {
    const r = refusal({ tool_name: "echo", tool_args: { tool_calls: [echoCall()] } });
    expect(r.code).toBe("nothing_to_do");
  });
});

describe("parseParallel: request metadata in the body", () => {
  it.each(["callback_url", "notify"])("refuses %s inside the tool arguments", (key) => {
    expect(
      refusal({
        tool_calls: [echoCall()],
        [key]: key === "notify" ? { telegram_chat_id: 1 } : "https://bot.example/cb",
      }),
    ).toEqual({
      status: 400,
      code: "option_not_allowed_in_tool_args",
      message: `\`${key}\` is set by the bot, not the model: pass it as the query parameter ?${key}= (or the client's \`{ ${key === "callback_url" ? "callbackUrl" : key} }\` option), not inside tool arguments.`,
    });
  });

  it("refuses callback_url inside an unwrapped envelope", () => {
    const r = refusal({
      tool_name: "parallel",
      tool_args: { tool_calls: [echoCall()], callback_url: "https://x.example" },
    });
    expect(r.code).toBe("option_not_allowed_in_tool_args");
  });

  it("refuses metadata even when its value is null", () => {
    expect(refusal({ tool_calls: [echoCall()], notify: null }).code).toBe("option_not_allowed_in_tool_args");
  });
});

describe("parseParallel: validation order", () => {
  const allBad = { timeout: "soon", job_timeout: "later", job_ids: 5, tool_calls: "not json" };

  it("reports a bad timeout before anything else", () => {
    expect(refusal(allBad)).toEqual({
      status: 400,
      code: "invalid_timeout",
      message: "`timeout` must be an integer number of seconds, got 'soon'.",
    });
  });

  it("reports a bad job_timeout before bad job_ids and tool_calls", () => {
    const { timeout: _t, ...body } = allBad;
    expect(refusal(body)).toEqual({
      status: 400,
      code: "invalid_timeout",
      message: "`job_timeout` must be an integer number of seconds, got 'later'.",
    });
  });

  it("reports bad job_ids before bad tool_calls", () => {
    const { timeout: _t, job_timeout: _j, ...body } = allBad;
    expect(refusal(body)).toEqual({
      status: 400,
      code: "invalid_job_ids",
      message: "`job_ids` must be a string or an array of strings.",
    });
  });

  it("reports bad tool_calls last", () => {
    expect(refusal({ tool_calls: "not json" })).toEqual({
      status: 400,
      code: "invalid_tool_calls",
      message: "`tool_calls` must be an array of normal tool-call objects.",
    });
  });

  it("reports a non-positive timeout before bad job_ids", () => {
    expect(refusal({ timeout: 0, job_ids: {} }).message).toBe("`timeout` must be greater than 0.");
  });

  it("reports a job_timeout above max_job_timeout_seconds before bad job_ids", () => {
    const r = refusal({ job_timeout: 3601, job_ids: 5 });
    expect(r.status).toBe(400);
    expect(r.code).toBe("invalid_timeout");
  });

  it("checks tool_calls items in index order", () => {
    const r = refusal({ tool_calls: [echoCall(), { tool_name: "nope", tool_args: {} }, "not a dict"] });
    expect(r.code).toBe("unknown_tool");
    expect(r.message).toMatch(/^tool_calls\[1\] uses unknown tool 'nope'\./);
  });

  it("reports an item's shape problem when it comes before another item's unknown tool", () => {
    const r = refusal({ tool_calls: [echoCall(), "not a dict", { tool_name: "nope", tool_args: {} }] });
    expect(r).toEqual({
      status: 400,
      code: "invalid_tool_calls",
      message: "tool_calls[1] is not a valid tool call: Tool request must be a dictionary",
    });
  });
});

describe("parseParallel: timeouts", () => {
  it("waits the default timeout capped by max_wait_seconds when timeout is omitted", () => {
    expect(parse({ tool_calls: [echoCall()] }).wait_seconds).toBe(90);
    const small = makeConfig({ limits: { default_timeout_seconds: 20 } });
    expect(parse({ tool_calls: [echoCall()] }, small).wait_seconds).toBe(20);
  });

  it("waits the given timeout when it is below max_wait_seconds", () => {
    expect(parse({ tool_calls: [echoCall()], timeout: 30 }).wait_seconds).toBe(30);
    expect(parse({ tool_calls: [echoCall()], timeout: "12" }).wait_seconds).toBe(12);
    expect(parse({ tool_calls: [echoCall()], timeout: 7.9 }).wait_seconds).toBe(7);
    expect(parse({ tool_calls: [echoCall()], timeout: true }).wait_seconds).toBe(1);
  });

  it("caps the wait at max_wait_seconds", () => {
    expect(parse({ tool_calls: [echoCall()], timeout: 500 }).wait_seconds).toBe(90);
    const tight = makeConfig({ limits: { max_wait_seconds: 10 } });
    expect(parse({ tool_calls: [echoCall()], timeout: 30 }, tight).wait_seconds).toBe(10);
  });

  it("uses each tool's own deadline when job_timeout is omitted", () => {
    const cmd = parse({ tool_calls: [echoCall(), { tool_name: "search", tool_args: { q: "x" } }, waitCall()] });
    expect(cmd.jobs.map((j) => j.timeout_seconds)).toEqual([600, 60, 600]);
  });

  it("never gives a default deadline above max_job_timeout_seconds", () => {
    const cfg = makeConfig({ limits: { tool_job_timeout_seconds: 900, max_job_timeout_seconds: 120 } });
    expect(parse({ tool_calls: [echoCall()] }, cfg).jobs[0]?.timeout_seconds).toBe(120);
  });

  it("applies job_timeout to every started job", () => {
    const cmd = parse({ tool_calls: [echoCall(), { tool_name: "search", tool_args: { q: "x" } }], job_timeout: "45" });
    expect(cmd.jobs.map((j) => j.timeout_seconds)).toEqual([45, 45]);
  });

  it("accepts job_timeout equal to max_job_timeout_seconds", () => {
    expect(parse({ tool_calls: [echoCall()], job_timeout: 3600 }).jobs[0]?.timeout_seconds).toBe(3600);
  });

  it("refuses job_timeout above max_job_timeout_seconds with 400", () => {
    const r = refusal({ tool_calls: [echoCall()], job_timeout: 3601 });
    expect(r.status).toBe(400);
    expect(r.code).toBe("invalid_timeout");
    const cfg = makeConfig({ limits: { max_job_timeout_seconds: 100 } });
    expect(refusal({ tool_calls: [echoCall()], job_timeout: 101 }, cfg).code).toBe("invalid_timeout");
  });

  it("refuses a zero job_timeout", () => {
    expect(refusal({ tool_calls: [echoCall()], job_timeout: 0 })).toEqual({
      status: 400,
      code: "invalid_timeout",
      message: "`job_timeout` must be greater than 0.",
    });
  });
});

describe("parseParallel: wait.seconds bounds", () => {
  it("refuses a wait longer than 30 days, naming the bound, and accepts one of exactly 30 days", () => {
    const month = makeConfig({ limits: { max_job_timeout_seconds: 2_592_000 } });
    expect(parse({ tool_calls: [waitCall(2_592_000)], job_timeout: 2_592_000 }, month).jobs).toHaveLength(1);
    for (const seconds of [2_592_001, 1e308]) {
      const r = refusal({ tool_calls: [waitCall(seconds)] });
      expect(r).toMatchObject({ status: 400, code: "invalid_tool_calls" });
      expect(r.message).toContain("tool_calls[0] is not a valid tool call: /seconds");
      expect(r.message).toContain("2592000");
    }
  });
});

describe("parseParallel: a wait within its job's deadline", () => {
  it("refuses a wait past the deadline, naming where the deadline comes from", () => {
    expect(refusal({ tool_calls: [waitCall(6)], job_timeout: 5 }).message).toBe(
      "tool_calls[0] is not a valid tool call: /seconds must be at most the job's deadline of 5 s (job_timeout); wait less or raise job_timeout",
    );
    expect(refusal({ tool_calls: [waitCall(600.5)] }).message).toContain(
      "deadline of 600 s (limits.tool_job_timeout_seconds)",
    );
  });

  it("accepts a wait of exactly its deadline", () => {
    expect(parse({ tool_calls: [waitCall(5)], job_timeout: 5 }).jobs[0]).toMatchObject({
      tool_name: "wait",
      timeout_seconds: 5,
    });
  });
});

describe("parseParallel: job_ids", () => {
  it("takes a string as one id", () => {
    expect(parse({ job_ids: "echo-aaa,echo-bbb" }).job_ids).toEqual(["echo-aaa,echo-bbb"]);
  });

  it("normalises arrays: stringified, blanks and duplicates dropped, first kept", () => {
    expect(parse({ job_ids: ["b", "", "a", "b", 3] }).job_ids).toEqual(["b", "a", "3"]);
  });

  it("refuses more than max_job_ids ids with 400 invalid_job_ids", () => {
    const cfg = makeConfig({ limits: { max_job_ids: 2 } });
    expect(parse({ job_ids: ["a", "b"] }, cfg).job_ids).toEqual(["a", "b"]);
    const r = refusal({ job_ids: ["a", "b", "c"] }, cfg);
    expect(r.status).toBe(400);
    expect(r.code).toBe("invalid_job_ids");
  });

  it("counts ids after duplicates are dropped", () => {
    const cfg = makeConfig({ limits: { max_job_ids: 2 } });
    expect(parse({ job_ids: ["a", "b", "a", "b"] }, cfg).job_ids).toEqual(["a", "b"]);
  });

  it("keeps the given job_ids alongside new tool calls", () => {
    const cmd = parse({ job_ids: ["old-1"], tool_calls: [echoCall()] });
    expect(cmd.job_ids).toEqual(["old-1"]);
    expect(cmd.jobs).toHaveLength(1);
  });
});

describe("parseParallel: action and wait", () => {
  it.each([
    ["start", false],
    ["background", false],
    ["collect", false],
  ])("does not wait by default for action %s", (action, wait) => {
    const cmd = parse({ action, tool_calls: [echoCall()], job_ids: ["x"] });
    expect(cmd.action).toBe(action);
    expect(cmd.wait).toBe(wait);
  });

  it("waits by default when no action is given", () => {
    expect(parse({ tool_calls: [echoCall()] }).wait).toBe(true);
  });

  it("honours wait:false when no action is given (started in the background)", () => {
    const cmd = parse({ tool_calls: [echoCall()], wait: false });
    expect(cmd.wait).toBe(false);
  });

  it("reads wait words when no action is given", () => {
    expect(parse({ tool_calls: [echoCall()], wait: "off" }).wait).toBe(false);
    expect(parse({ tool_calls: [echoCall()], wait: "NO" }).wait).toBe(false);
    expect(parse({ tool_calls: [echoCall()], wait: 0 }).wait).toBe(false);
  });

  it("always waits for action await, even with wait:false", () => {
    const cmd = parse({ action: "await", job_ids: ["x"], wait: false });
    expect(cmd.action).toBe("await");
    expect(cmd.wait).toBe(true);
  });

  it("treats action wait as await", () => {
    const cmd = parse({ action: "wait", job_ids: ["x"], wait: false });
    expect(cmd.action).toBe("await");
    expect(cmd.wait).toBe(true);
  });

  it("treats an unknown action like await", () => {
    for (const body of [
      { action: "poll", job_ids: ["x"] },
      { action: "poll", job_ids: ["x"], wait: true },
      { action: 7, job_ids: ["x"], wait: null },
    ]) {
      const cmd = parse(body);
      expect(cmd.action).toBe("await");
      expect(cmd.wait).toBe(true);
    }
  });

  it.each([[false], ["no"], ["OFF"], [0]])(
    "treats an unknown action with an explicit wait %j like collect: no wait",
    (wait) => {
      const cmd = parse({ action: "poll", job_ids: ["x"], wait });
      expect(cmd.action).toBe("collect");
      expect(cmd.wait).toBe(false);
    },
  );

  it("starts the calls of an unknown action with wait:false in the background", () => {
    const cmd = parse({ action: "run_now", tool_calls: [echoCall()], wait: false });
    expect([cmd.action, cmd.wait, cmd.jobs.length]).toEqual(["collect", false, 1]);
  });

  it("returns at once for collect unless wait:true is explicit", () => {
    expect(parse({ action: "collect", job_ids: ["x"] }).wait).toBe(false);
    expect(parse({ action: "collect", job_ids: ["x"], wait: false }).wait).toBe(false);
    expect(parse({ action: "collect", job_ids: ["x"], wait: true }).wait).toBe(true);
  });

  it("lets an explicit wait override the start default", () => {
    expect(parse({ action: "start", tool_calls: [echoCall()], wait: true }).wait).toBe(true);
    expect(parse({ action: "background", tool_calls: [echoCall()], wait: "yes" }).wait).toBe(true);
  });
});

describe("parseParallel: cancel", () => {
  it("requires job_ids", () => {
    expect(refusal({ action: "cancel" })).toEqual({
      status: 400,
      code: "no_job_ids_to_cancel",
      message: "No `job_ids` were provided to cancel.",
    });
  });

  it("requires job_ids even when tool_calls are given", () => {
    expect(refusal({ action: "cancel", tool_calls: [echoCall()] }).code).toBe("no_job_ids_to_cancel");
  });

  it("treats blank job_ids as none to cancel", () => {
    expect(refusal({ action: "cancel", job_ids: ["", "  "] }).code).toBe("no_job_ids_to_cancel");
  });

  it("ignores tool_calls, even invalid ones, and starts nothing", () => {
    const cmd = parse({ action: "cancel", job_ids: ["a", "b"], tool_calls: "garbage" });
    expect(cmd.action).toBe("cancel");
    expect(cmd.job_ids).toEqual(["a", "b"]);
    expect(cmd.jobs).toEqual([]);
    const cmd2 = parse({ action: "cancel", job_ids: "a", tool_calls: [{ tool_name: "nope", tool_args: {} }] });
    expect(cmd2.jobs).toEqual([]);
  });

  it("checks timeout and job_ids before cancelling", () => {
    expect(refusal({ action: "cancel", timeout: "x", job_ids: ["a"] }).code).toBe("invalid_timeout");
    expect(refusal({ action: "cancel", job_ids: 5 }).code).toBe("invalid_job_ids");
  });
});

describe("parseParallel: each call's own id", () => {
  it("keeps the id of every shape on its job, and leaves it out for a call without one", () => {
    const cmd = parse({
      tool_calls: [
        { id: "call_openai", type: "function", function: { name: "echo", arguments: "{}" } },
        { type: "tool_use", id: "toolu_anthropic", name: "echo", input: {} },
        { type: "tool-call", toolCallId: "call_aisdk", toolName: "echo", input: {} },
        { functionCall: { name: "echo", args: {}, id: "gemini_1" } },
        { function_call: { name: "echo", args: {} } },
        { tool_name: "echo", tool_args: {}, tool_call_id: "explicit" },
        echoCall(),
      ],
    });
    expect(cmd.jobs.map((j) => j.tool_call_id)).toEqual([
      "call_openai",
      "toolu_anthropic",
      "call_aisdk",
      "gemini_1",
      undefined,
      "explicit",
      undefined,
    ]);
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(Array(7).fill("echo"));
    expect("tool_call_id" in cmd.jobs[6]!).toBe(false);
  });

  it("keeps the id on a subordinate's job too", () => {
    const cmd = parse({ tool_calls: [{ toolCallId: "call_sub", toolName: "spawn_task", input: { task: "look" } }] });
    expect([cmd.jobs[0]!.kind, cmd.jobs[0]!.tool_call_id]).toEqual(["subordinate", "call_sub"]);
  });

  it("drops an id over 128 characters and still starts the call", () => {
    const cmd = parse({ tool_calls: [{ type: "tool_use", id: "t".repeat(129), name: "echo", input: {} }] });
    expect(cmd.jobs[0]!.tool_call_id).toBeUndefined();
  });
});

describe("parseParallel: tool_calls", () => {
  it("turns each item into a job in index order", () => {
    const cmd = parse({
      tool_calls: [echoCall({ a: 1 }), waitCall(2), { tool_name: "search", tool_args: { q: "x" } }],
    });
    expect(cmd.jobs.map((j) => [j.index, j.tool_name, j.kind])).toEqual([
      [0, "echo", "tool"],
      [1, "wait", "tool"],
      [2, "search", "tool"],
    ]);
    expect(JSON.parse(cmd.jobs[0]!.tool_args)).toEqual({ a: 1 });
    expect(JSON.parse(cmd.jobs[1]!.tool_args)).toEqual({ seconds: 2 });
  });

  it("marks read-only tools from the catalog", () => {
    const cmd = parse({ tool_calls: [echoCall(), { tool_name: "search", tool_args: { q: "x" } }, waitCall()] });
    expect(cmd.jobs.map((j) => j.read_only)).toEqual([true, false, true]);
  });

  it("accepts tool_calls as a string holding a JSON array", () => {
    const cmd = parse({ tool_calls: JSON.stringify([echoCall({ a: 1 }), waitCall()]) });
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["echo", "wait"]);
  });

  it.each([["not json"], ['{"tool_name":"echo","tool_args":{}}'], ["null"], [{ tool_name: "echo" }], [5], [true]])(
    "refuses tool_calls %j that is not an array",
    (tool_calls) => {
      expect(refusal({ tool_calls })).toEqual({
        status: 400,
        code: "invalid_tool_calls",
        message: "`tool_calls` must be an array of normal tool-call objects.",
      });
    },
  );

  it("refuses an empty tool_calls array", () => {
    expect(refusal({ tool_calls: [] })).toEqual({
      status: 400,
      code: "invalid_tool_calls",
      message: "`tool_calls` must contain at least one tool call.",
    });
    expect(refusal({ tool_calls: "[]", job_ids: ["a"] }).message).toBe(
      "`tool_calls` must contain at least one tool call.",
    );
  });

  it("accepts exactly max_calls items and refuses one more", () => {
    expect(parse({ tool_calls: Array.from({ length: 8 }, () => echoCall()) }).jobs).toHaveLength(8);
    expect(refusal({ tool_calls: Array.from({ length: 9 }, () => echoCall()) })).toEqual({
      status: 400,
      code: "invalid_tool_calls",
      message: "`tool_calls` supports at most 8 items.",
    });
  });

  it("uses the tenant's max_calls in the limit message", () => {
    const cfg = makeConfig({ limits: { max_calls: 2 } });
    expect(refusal({ tool_calls: [echoCall(), echoCall(), echoCall()] }, cfg).message).toBe(
      "`tool_calls` supports at most 2 items.",
    );
  });

  it("accepts the alias calls", () => {
    expect(parse({ calls: [echoCall()] }).jobs.map((j) => j.tool_name)).toEqual(["echo"]);
  });

  it("accepts the alias items", () => {
    expect(parse({ items: [waitCall()] }).jobs.map((j) => j.tool_name)).toEqual(["wait"]);
  });

  it("lets tool_calls win over calls and items", () => {
    const cmd = parse({ tool_calls: [echoCall()], calls: [waitCall()], items: [waitCall(), waitCall()] });
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["echo"]);
  });

  it("lets calls win over items", () => {
    const cmd = parse({ calls: [echoCall()], items: [waitCall(), waitCall()] });
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["echo"]);
  });

  it("lets the first alias present win even when it is null (no calls)", () => {
    expect(refusal({ tool_calls: null, calls: [echoCall()] }).code).toBe("nothing_to_do");
    expect(refusal({ calls: null, items: [echoCall()] }).code).toBe("nothing_to_do");
    const cmd = parse({ tool_calls: null, items: [echoCall()], job_ids: ["a"] });
    expect(cmd.jobs).toEqual([]);
    expect(cmd.job_ids).toEqual(["a"]);
  });

  it("accepts every item shape in one batch", () => {
    const cmd = parse({
      tool_calls: [
        { tool_name: "echo", tool_args: { n: 0 } },
        { tool: "echo", args: { n: 1 } },
        { type: "function", name: "echo", parameters: { n: 2 } },
        { id: "call_1", type: "function", function: { name: "echo", arguments: '{"n":3}' } },
        { name: "echo", arguments: { n: 4 } },
        { name: "echo", arguments: "" },
        { actions: [{ tool_name: "echo", tool_args: { n: 6 } }] },
        { thoughts: ["x"], headline: "h", tool_name: "echo:ping", tool_args: { n: 7 } },
      ],
    });
    expect(cmd.jobs.map((j) => JSON.parse(j.tool_args) as unknown)).toEqual([
      { n: 0 },
      { n: 1 },
      { n: 2 },
      { n: 3 },
      { n: 4 },
      {},
      { n: 6 },
      { n: 7, action: "ping" },
    ]);
    expect(cmd.jobs.every((j) => j.tool_name === "echo")).toBe(true);
  });

  it.each([
    [{ actions: [] }, "Tool request actions wrapper must contain exactly one dictionary"],
    [{ tool_args: {} }, "Tool request must have a tool_name (type string) field"],
    [{ tool_name: "echo" }, "Tool request must have a tool_args (type dictionary) field"],
    [{ tool_name: "echo:", tool_args: {} }, "tool_name method suffix must include tool and action"],
    [["echo"], "Tool request must be a dictionary"],
  ])("reports the item reason for %j with its index", (item, why) => {
    expect(refusal({ tool_calls: [echoCall(), echoCall(), item] })).toEqual({
      status: 400,
      code: "invalid_tool_calls",
      message: `tool_calls[2] is not a valid tool call: ${why}`,
    });
  });

  it("keeps a __proto__ key in the arguments as plain data", () => {
    const body = JSON.parse(
      '{"tool_calls":[{"tool_name":"echo","tool_args":{"__proto__":{"polluted":true}}}]}',
    ) as unknown;
    const cmd = parse(body);
    expect(cmd.jobs[0]?.tool_args).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("parseParallel: tools that cannot run inside parallel", () => {
  it("refuses a nested parallel call", () => {
    expect(refusal({ tool_calls: [echoCall(), { tool_name: "parallel", tool_args: { tool_calls: [] } }] })).toEqual({
      status: 400,
      code: "nested_parallel",
      message: "`parallel` cannot be nested inside another `parallel` call.",
    });
  });

  it("refuses a nested parallel call written in the OpenAI shape", () => {
    const item = { type: "function", function: { name: "parallel", arguments: "{}" } };
    expect(refusal({ tool_calls: [item] }).code).toBe("nested_parallel");
  });

  it.each(["response", "document_query", "goal", "input", "input_remote"])("refuses %s inside parallel", (tool) => {
    expect(refusal({ tool_calls: [{ tool_name: tool, tool_args: {} }] })).toEqual({
      status: 400,
      code: "tool_not_allowed_in_parallel",
      message: `\`${tool}\` cannot be used inside \`parallel\`; call it sequentially.`,
    });
  });
});

describe("parseParallel: unknown tools", () => {
  it("names the unknown tool and lists the available tools", () => {
    expect(refusal({ tool_calls: [echoCall(), { tool_name: "nope", tool_args: {} }] })).toEqual({
      status: 400,
      code: "unknown_tool",
      message:
        "tool_calls[1] uses unknown tool 'nope'. Available tools: wait, echo, search, spawn_task, call_subordinate.",
    });
  });

  it("lists http_request when the tenant allows an origin for it", () => {
    const cfg = makeConfig({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } });
    expect(refusal({ tool_calls: [{ tool_name: "nope", tool_args: {} }] }, cfg).message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: wait, http_request, echo, search, spawn_task, call_subordinate.",
    );
  });

  it("refuses http_request when no origin is allowed", () => {
    const item = { tool_name: "http_request", tool_args: { url: "https://api.example/x" } };
    expect(refusal({ tool_calls: [item] }).code).toBe("unknown_tool");
  });

  it("treats a tool outside the calling agent's tools as unavailable", () => {
    const r = refusal({ tool_calls: [echoCall()] }, config, "researcher");
    expect(r).toEqual({
      status: 400,
      code: "unknown_tool",
      message: "tool_calls[0] uses unknown tool 'echo'. Available tools: wait, search, spawn_task, call_subordinate.",
    });
  });

  it("lists the MCP tools of the servers it was given, after the tenant's", () => {
    const cfg = makeConfig({ mcp_servers: [{ name: "docs", url: "https://mcp.example/docs" }] });
    const mcp = {
      docs: {
        tools: [{ name: "lookup", description: "", parameters: { type: "object" }, read_only: true }],
        fetched_at: 0,
      },
    };
    const e = apiError(() =>
      parseParallel({ tool_calls: [{ tool_name: "nope", tool_args: {} }] }, cfg, "default", {
        available: toolsForAgent(cfg, "default", mcp),
        mcp,
      }),
    );
    expect(e.message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: wait, echo, search, docs__lookup, spawn_task, call_subordinate.",
    );
  });

  it("leaves the subordinate tools out when the calling agent may start no type", () => {
    const cfg = makeConfig({ agents: { solo: { permission: { task: [["*", "deny"]] } } } });
    expect(refusal({ tool_calls: [{ tool_name: "nope", tool_args: {} }] }, cfg, "solo").message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: wait, echo, search.",
    );
  });

  it("leaves the subordinate tools out at max_depth", () => {
    const e = apiError(() =>
      jobSpec(
        0,
        { tool_name: "nope", tool_args: {} },
        {
          config,
          agent: "default",
          available: toolsForAgent(config, "default"),
          level: config.limits.max_depth,
          patterns: new PatternMeter(),
        },
      ),
    );
    expect(e.message).toBe("tool_calls[0] uses unknown tool 'nope'. Available tools: wait, echo, search.");
  });

  it("names parallel too where a call may be parallel itself (a tool call of its own, not one inside parallel)", () => {
    const ctx = { config, agent: "default", available: toolsForAgent(config, "default"), patterns: new PatternMeter() };
    const e = apiError(() => planToolCall(0, { tool_name: "nope", tool_args: {} }, ctx, specNumbering()));
    expect(e.message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: parallel, wait, echo, search, spawn_task, call_subordinate.",
    );
    const inside = apiError(() =>
      planToolCall(
        0,
        { tool_name: "parallel", tool_args: { tool_calls: [{ tool_name: "nope", tool_args: {} }] } },
        ctx,
        specNumbering(),
      ),
    );
    expect(inside.message).toBe(
      "tool_calls[0] uses unknown tool 'nope'. Available tools: wait, echo, search, spawn_task, call_subordinate.",
    );
  });

  it("lets the calling agent use its own tools and wait", () => {
    const cmd = parse(
      { tool_calls: [{ tool_name: "search", tool_args: { q: "x" } }, waitCall()] },
      config,
      "researcher",
    );
    expect(cmd.jobs.map((j) => j.tool_name)).toEqual(["search", "wait"]);
  });
});

describe("parseParallel: schema validation", () => {
  it("reports a wrongly typed argument with its JSON pointer", () => {
    const r = refusal({ tool_calls: [{ tool_name: "search", tool_args: { q: 5 } }] });
    expect(r.status).toBe(400);
    expect(r.code).toBe("invalid_tool_calls");
    expect(r.message).toMatch(/^tool_calls\[0\] is not a valid tool call: \/q \S.*/);
  });

  it("reports a nested violation with the full pointer", () => {
    const r = refusal({
      tool_calls: [echoCall(), { tool_name: "search", tool_args: { q: "x", opts: { n: "many" } } }],
    });
    expect(r.code).toBe("invalid_tool_calls");
    expect(r.message).toMatch(/^tool_calls\[1\] is not a valid tool call: \/opts\/n \S.*/);
  });

  it("reports a missing required argument", () => {
    const r = refusal({ tool_calls: [{ tool_name: "search", tool_args: {} }] });
    expect(r.code).toBe("invalid_tool_calls");
    expect(r.message).toMatch(/^tool_calls\[0\] is not a valid tool call: .*q/);
  });

  it("validates built-in wait arguments", () => {
    const r = refusal({ tool_calls: [{ tool_name: "wait", tool_args: { seconds: "long" } }] });
    expect(r.code).toBe("invalid_tool_calls");
    expect(r.message).toMatch(/^tool_calls\[0\] is not a valid tool call: \/seconds \S.*/);
  });

  it("refuses an http_request to an origin outside allowed_origins", () => {
    const cfg = makeConfig({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } });
    const ok = parse({ tool_calls: [{ tool_name: "http_request", tool_args: { url: "https://api.example/x" } }] }, cfg);
    expect(ok.jobs[0]?.tool_name).toBe("http_request");
    const r = refusal(
      { tool_calls: [{ tool_name: "http_request", tool_args: { url: "https://evil.example/x" } }] },
      cfg,
    );
    expect(r.code).toBe("invalid_tool_calls");
    expect(r.message).toMatch(/^tool_calls\[0\] is not a valid tool call: \/url /);
  });

  it("marks http_request read-only only for GET and HEAD", () => {
    const cfg = makeConfig({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } });
    const req = (method?: string) => ({
      tool_name: "http_request",
      tool_args: method ? { url: "https://api.example/x", method } : { url: "https://api.example/x" },
    });
    const cmd = parse({ tool_calls: [req(), req("GET"), req("HEAD"), req("POST"), req("DELETE")] }, cfg);
    expect(cmd.jobs.map((j) => j.read_only)).toEqual([true, true, true, false, false]);
  });
});

describe("parseParallel: nothing to do", () => {
  it.each([[{}], [{ job_ids: [] }], [{ job_ids: "" }], [{ wait: true }], [{ tool_calls: null }]])(
    "refuses %j",
    (body) => {
      expect(refusal(body)).toEqual({
        status: 400,
        code: "nothing_to_do",
        message: "provide `tool_calls` to start parallel jobs, or `job_ids` to await/cancel existing jobs.",
      });
    },
  );

  it("accepts job_ids alone and waits for them", () => {
    const cmd = parse({ job_ids: ["a"] });
    expect(cmd).toMatchObject({ wait: true, job_ids: ["a"], jobs: [] });
    expect(cmd.action === undefined || cmd.action === "await").toBe(true);
  });
});

describe("JSON hidden inside strings", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  it("refuses a tool_calls string nested deeper than 32 levels", () => {
    const e = apiError(() => parse({ tool_calls: `[{"tool_name":"echo","tool_args":{"a":${nested(40)}}}]` }));
    expect(e.code).toBe("invalid_json");
    expect(e.status).toBe(400);
  });

  it("refuses OpenAI arguments nested deeper than 32 levels, naming the call", () => {
    const item = { type: "function", function: { name: "echo", arguments: `{"a":${nested(20000)}}` } };
    const e = apiError(() => parse({ tool_calls: [item] }));
    expect(e.message).toBe("tool_calls[0] is not a valid tool call: Tool request arguments nest deeper than 32 levels");
  });
});
