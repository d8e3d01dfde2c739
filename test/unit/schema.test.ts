import { describe, expect, it } from "vitest";
import {
  configSchema,
  crossFieldProblems,
  defaultConfig,
  NAME_PATTERN,
  RESERVED_NAMES,
} from "../../src/core/config/schema";

const ok = (input: unknown) => configSchema.safeParse(input).success;
const tool = (over: Record<string, unknown> = {}) => ({ name: "search", url: "https://tools.example/search", ...over });

describe("configSchema defaults", () => {
  it("fills the limits of the normative example when nothing is given", () => {
    expect(defaultConfig().limits).toEqual({
      max_calls: 8,
      max_parallel_subagents: 5,
      max_subagents_per_tree: 20,
      max_depth: 2,
      on_subagent_limit: "reject",
      max_queued_subagents: 20,
      max_active_jobs_per_chat: 64,
      max_wait_seconds: 90,
      default_timeout_seconds: 300,
      tool_job_timeout_seconds: 600,
      subordinate_job_timeout_seconds: 1800,
      max_job_timeout_seconds: 3600,
      subagent_idle_seconds: 300,
      max_tokens_per_job: null,
      max_result_chars: 16000,
      max_stored_result_bytes: 1048576,
      max_response_bytes: 1048576,
      max_body_bytes: 262144,
      max_job_ids: 64,
      retention_seconds: 604800,
      max_streams: 100,
      tool_calls_order: "tiered",
      budget: {},
    });
  });

  it("has no tools, servers, agents or integrations by default", () => {
    const c = configSchema.parse({});
    expect(c.tools).toEqual([]);
    expect(c.mcp_servers).toEqual([]);
    expect(c.agents).toEqual({});
    expect(c.llm).toBeNull();
    expect(c.webhook).toBeNull();
    expect(c.telegram).toBeNull();
    expect(c.builtins).toEqual({ http_request: { allowed_origins: [] } });
  });

  it("fills omitted limits individually when some are given", () => {
    const c = configSchema.parse({ limits: { max_calls: 3 } });
    expect(c.limits.max_calls).toBe(3);
    expect(c.limits.max_wait_seconds).toBe(90);
    expect(c.limits.retention_seconds).toBe(604800);
  });

  it("defaults a tool to not read-only with an object schema", () => {
    const t = configSchema.parse({ tools: [tool()] }).tools[0]!;
    expect(t.read_only).toBe(false);
    expect(t.parameters).toEqual({ type: "object" });
    expect(t.description).toBe("");
  });

  it("defaults an agent to 25 steps", () => {
    expect(configSchema.parse({ agents: { researcher: {} } }).agents.researcher?.max_steps).toBe(25);
  });

  it("defaults the webhook to no extra callback origins and no child chats", () => {
    const w = configSchema.parse({ webhook: { url: "https://bot.example/fanout" } }).webhook!;
    expect(w.allowed_callback_origins).toEqual([]);
    expect(w.include_child_chats).toBe(false);
  });

  it("defaults the Telegram API base URL", () => {
    expect(configSchema.parse({ telegram: { bot_token: "t" } }).telegram?.api_base_url).toBe(
      "https://api.telegram.org",
    );
  });

  it("accepts the whole example document of docs/api.md#configuration", () => {
    const example = {
      tools: [
        {
          name: "search",
          description: "Web search",
          parameters: { type: "object" },
          url: "https://tools.example/search",
          read_only: true,
          timeout_seconds: 60,
          secret: "whsec_abc",
        },
      ],
      mcp_servers: [{ name: "docs", url: "https://mcp.example/mcp", headers: { Authorization: "***" } }],
      agents: {
        default: { description: "Main agent", system_prompt: "…", tools: ["*"], max_steps: 25 },
        boss: {
          description: "…",
          system_prompt: "…",
          tools: ["search"],
          permission: {
            task: [
              ["*", "deny"],
              ["researcher", "allow"],
            ],
          },
        },
        researcher: { description: "Finds facts", system_prompt: "…", tools: ["search", "docs__*"] },
      },
      llm: { base_url: "https://api.example/v1", model: "model-x", api_key: "***" },
      webhook: {
        url: "https://bot.example/fanout",
        secret: "whsec_abc",
        allowed_callback_origins: [],
        include_child_chats: false,
      },
      telegram: { bot_token: "***", api_base_url: "https://api.telegram.org" },
      builtins: { http_request: { allowed_origins: [] } },
      limits: defaultConfig().limits,
    };
    expect(configSchema.safeParse(example).error).toBeUndefined();
  });
});

describe("configSchema unknown keys", () => {
  it.each([
    ["top level", { tols: [] }],
    ["limits", { limits: { max_call: 3 } }],
    ["a tool", { tools: [tool({ retries: 3 })] }],
    ["an MCP server", { mcp_servers: [{ name: "docs", url: "https://mcp.example", token: "x" }] }],
    ["an agent", { agents: { a: { prompt: "x" } } }],
    ["an agent's permission", { agents: { a: { permission: { spawn: [] } } } }],
    ["llm", { llm: { base_url: "https://api.example", model: "m", temperature: 1 } }],
    ["webhook", { webhook: { url: "https://bot.example", retries: 3 } }],
    ["telegram", { telegram: { bot_token: "t", chat_id: 1 } }],
    ["builtins", { builtins: { shell: {} } }],
    ["builtins.http_request", { builtins: { http_request: { allowed_origins: [], methods: ["GET"] } } }],
  ])("refuses an unknown key in %s", (_where, input) => {
    expect(ok(input)).toBe(false);
  });
});

describe("configSchema names", () => {
  it.each(["a", "search", "Search2", "web-search_v2", "a".repeat(48)])("accepts the name %j", (name) => {
    expect(ok({ tools: [tool({ name })] })).toBe(true);
    expect(ok({ agents: { [name]: {} } })).toBe(true);
    expect(ok({ mcp_servers: [{ name, url: "https://mcp.example" }] })).toBe(true);
  });

  it.each(["", "1search", "_search", "-search", "web.search", "web search", "a".repeat(49), "sëarch"])(
    "refuses the name %j",
    (name) => {
      expect(ok({ tools: [tool({ name })] })).toBe(false);
      expect(ok({ agents: { [name]: {} } })).toBe(false);
      expect(ok({ mcp_servers: [{ name, url: "https://mcp.example" }] })).toBe(false);
    },
  );

  it.each([
    "parallel",
    "wait",
    "http_request",
    "spawn_task",
    "call_subordinate",
    "response",
    "document_query",
    "goal",
    "input",
    "input_remote",
  ])("refuses the reserved name %s for tools, agents and MCP servers", (name) => {
    expect(ok({ tools: [tool({ name })] })).toBe(false);
    expect(ok({ agents: { [name]: {} } })).toBe(false);
    expect(ok({ mcp_servers: [{ name, url: "https://mcp.example" }] })).toBe(false);
  });

  it("reserves exactly the built-in and Agent Zero names of docs/api.md#names-and-agent-profiles", () => {
    expect([...RESERVED_NAMES].sort()).toEqual(
      [
        "parallel",
        "wait",
        "http_request",
        "spawn_task",
        "call_subordinate",
        "response",
        "document_query",
        "goal",
        "input",
        "input_remote",
      ].sort(),
    );
    expect(NAME_PATTERN.source).toBe("^[a-zA-Z][a-zA-Z0-9_-]{0,47}$");
  });
});

describe("configSchema limit bounds", () => {
  const limit = (key: string, value: unknown) => ok({ limits: { [key]: value } });

  it.each([
    ["max_calls", 1, true],
    ["max_calls", 32, true],
    ["max_calls", 0, false],
    ["max_calls", 33, false],
    ["max_calls", 2.5, false],
    ["max_calls", "8", false],
    ["max_wait_seconds", 1, true],
    ["max_wait_seconds", 95, true],
    ["max_wait_seconds", 0, false],
    ["max_wait_seconds", 96, false],
    ["retention_seconds", 60, true],
    ["retention_seconds", 59, false],
    ["retention_seconds", 10_000_000, true],
    ["max_depth", 0, true],
    ["max_depth", 5, true],
    ["max_depth", -1, false],
    ["max_depth", 6, false],
    ["on_subagent_limit", "queue", true],
    ["on_subagent_limit", "drop", false],
    ["max_tokens_per_job", null, true],
    ["max_tokens_per_job", 1000, true],
    ["retention_seconds", 31_536_000, true],
    ["retention_seconds", 31_536_001, false],
    ["max_response_bytes", 4_194_304, true],
    ["max_response_bytes", 4_194_305, false],
    ...[
      "default_timeout_seconds",
      "tool_job_timeout_seconds",
      "subordinate_job_timeout_seconds",
      "max_job_timeout_seconds",
      "subagent_idle_seconds",
    ].flatMap((key): [string, unknown, boolean][] => [
      [key, 2_592_000, true],
      [key, 2_592_001, false],
      [key, Number.MAX_SAFE_INTEGER, false],
    ]),
  ])("%s = %j is accepted: %s", (key, value, accepted) => {
    expect(limit(key, value)).toBe(accepted);
  });

  it("names the bound a number passed, so the 400 says what to send", () => {
    const parsed = configSchema.safeParse({ limits: { max_job_timeout_seconds: Number.MAX_SAFE_INTEGER } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ["limits", "max_job_timeout_seconds"], maximum: 2_592_000 });
  });

  it("bounds a tool's timeout_seconds at 30 days", () => {
    expect(ok({ tools: [tool({ timeout_seconds: 2_592_000 })] })).toBe(true);
    expect(ok({ tools: [tool({ timeout_seconds: 2_592_001 })] })).toBe(false);
  });
});

describe("configSchema permission.task", () => {
  const task = (rules: unknown) => ok({ agents: { boss: { permission: { task: rules } } } });

  it("accepts the ordered array form", () => {
    expect(
      task([
        ["*", "deny"],
        ["researcher", "allow"],
      ]),
    ).toBe(true);
    expect(task([])).toBe(true);
  });

  it("accepts the object form without integer-like keys", () => {
    expect(task({ "*": "deny", researcher: "allow", "res?": "deny" })).toBe(true);
  });

  it.each([{ "0": "allow" }, { "*": "deny", "12": "allow" }, { researcher: "allow", "7": "deny" }])(
    "refuses the object form with integer-like keys %j",
    (rules) => {
      expect(task(rules)).toBe(false);
    },
  );

  it.each([[[["*", "maybe"]]], [[["*"]]], [[["", "allow"]]], [{ "*": "yes" }], ["allow"], [[["*", "allow", "extra"]]]])(
    "refuses malformed rules %j",
    (rules) => {
      expect(task(rules)).toBe(false);
    },
  );

  it("keeps the rule order of the array form", () => {
    const c = configSchema.parse({
      agents: {
        boss: {
          permission: {
            task: [
              ["b*", "allow"],
              ["*", "deny"],
            ],
          },
        },
      },
    });
    expect(c.agents.boss?.permission?.task).toEqual([
      ["b*", "allow"],
      ["*", "deny"],
    ]);
  });
});

describe("crossFieldProblems", () => {
  it("finds nothing wrong in a plain config", () => {
    expect(crossFieldProblems(configSchema.parse({ tools: [tool()] }))).toEqual([]);
  });

  it("reports a tool defined twice and a server clashing with a tool", () => {
    const c = configSchema.parse({
      tools: [tool(), tool()],
      mcp_servers: [{ name: "search", url: "https://mcp.example" }],
    });
    expect(crossFieldProblems(c)).toHaveLength(2);
  });

  it("reports a tool timeout above max_job_timeout_seconds", () => {
    const c = configSchema.parse({ tools: [tool({ timeout_seconds: 7200 })] });
    expect(crossFieldProblems(c)).toHaveLength(1);
  });
});

describe("configSchema glob bounds", () => {
  const g128 = "*".repeat(1) + "a".repeat(127);
  const rules = (n: number) => Array.from({ length: n }, (_, i): [string, "allow"] => [`t${i}`, "allow"]);

  it("accepts globs of 128 characters and 64 entries", () => {
    expect(ok({ agents: { a: { tools: [g128, ...Array.from({ length: 63 }, (_, i) => `t${i}`)] } } })).toBe(true);
    expect(ok({ agents: { a: { permission: { task: [[g128, "allow"], ...rules(63)] } } } })).toBe(true);
    expect(ok({ agents: { a: { permission: { task: Object.fromEntries(rules(64)) } } } })).toBe(true);
  });

  it("refuses a glob of 129 characters, naming the bound", () => {
    const long = `${g128}b`;
    for (const input of [
      { agents: { a: { tools: [long] } } },
      { agents: { a: { permission: { task: [[long, "deny"]] } } } },
      { agents: { a: { permission: { task: { [long]: "deny" } } } } },
    ]) {
      const result = configSchema.safeParse(input);
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error?.issues)).toContain("at most 128 characters");
    }
  });

  it("refuses a 65th glob or rule, naming the bound", () => {
    for (const input of [
      { agents: { a: { tools: Array.from({ length: 65 }, (_, i) => `t${i}`) } } },
      { agents: { a: { permission: { task: rules(65) } } } },
      { agents: { a: { permission: { task: Object.fromEntries(rules(65)) } } } },
    ]) {
      const result = configSchema.safeParse(input);
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error?.issues)).toContain("at most 64");
    }
  });
});
