import { describe, expect, it } from "vitest";
import { configSchema, type TenantConfigInput } from "../../src/core/config/schema";
import { defaultJobTimeout, schemaProblems, toolsForAgent, type CatalogTool } from "../../src/core/tools/catalog";
import { PatternMeter } from "../../src/core/json-schema/linear-patterns";

const tool = (name: string, more: Record<string, unknown> = {}) => ({
  name,
  url: `https://tools.example/${name}`,
  ...more,
});

function config(extra: Partial<TenantConfigInput> = {}) {
  return configSchema.parse({
    tools: [
      tool("search", { read_only: true, timeout_seconds: 60 }),
      tool("docs__find"),
      tool("docs__read", { read_only: true }),
      tool("mailer"),
    ],
    ...extra,
  });
}

const names = (tools: CatalogTool[]) => tools.map((t) => t.name);

describe("toolsForAgent", () => {
  it("gives an agent without a profile every tool, built-ins first then the tenant's in order", () => {
    expect(names(toolsForAgent(config(), "default"))).toEqual(["wait", "search", "docs__find", "docs__read", "mailer"]);
  });

  it("gives a profile without a tools list every tool", () => {
    const c = config({ agents: { default: { description: "main" } } });
    expect(names(toolsForAgent(c, "default"))).toEqual(["wait", "search", "docs__find", "docs__read", "mailer"]);
  });

  it("offers http_request only when an origin is allowed", () => {
    expect(names(toolsForAgent(config(), "default"))).not.toContain("http_request");
    const c = config({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } });
    expect(names(toolsForAgent(c, "default"))).toEqual([
      "wait",
      "http_request",
      "search",
      "docs__find",
      "docs__read",
      "mailer",
    ]);
  });

  it("filters tools by the profile's globs", () => {
    const c = config({ agents: { researcher: { tools: ["search", "docs__*"] } } });
    expect(names(toolsForAgent(c, "researcher"))).toEqual(["wait", "search", "docs__find", "docs__read"]);
  });

  it("matches profile globs case-insensitively and with ?", () => {
    const c = config({ agents: { a: { tools: ["SEARCH", "docs__rea?"] } } });
    expect(names(toolsForAgent(c, "a"))).toEqual(["wait", "search", "docs__read"]);
  });

  it("always keeps wait, even for an empty tools list", () => {
    const c = config({ agents: { quiet: { tools: [] } } });
    expect(names(toolsForAgent(c, "quiet"))).toEqual(["wait"]);
  });

  it("keeps wait when the globs match nothing else", () => {
    const c = config({ agents: { a: { tools: ["nothing*"] } } });
    expect(names(toolsForAgent(c, "a"))).toEqual(["wait"]);
  });

  it("governs http_request by the profile's globs", () => {
    const base = { builtins: { http_request: { allowed_origins: ["https://api.example"] } } };
    const c = config({ ...base, agents: { a: { tools: ["search"] }, b: { tools: ["http_*"] } } });
    expect(names(toolsForAgent(c, "a"))).toEqual(["wait", "search"]);
    expect(names(toolsForAgent(c, "b"))).toEqual(["wait", "http_request"]);
  });

  it("does not let one profile's list affect another profile", () => {
    const c = config({ agents: { narrow: { tools: ["mailer"] }, wide: { tools: ["*"] } } });
    expect(names(toolsForAgent(c, "narrow"))).toEqual(["wait", "mailer"]);
    expect(names(toolsForAgent(c, "wide"))).toEqual(["wait", "search", "docs__find", "docs__read", "mailer"]);
  });

  it("reports each tenant tool's read_only flag", () => {
    const byName = new Map(toolsForAgent(config(), "default").map((t) => [t.name, t]));
    expect(byName.get("search")?.readOnly({})).toBe(true);
    expect(byName.get("mailer")?.readOnly({})).toBe(false);
    expect(byName.get("wait")?.readOnly({})).toBe(true);
  });

  it("treats http_request as read-only only for GET and HEAD", () => {
    const c = config({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } });
    const http = toolsForAgent(c, "default").find((t) => t.name === "http_request")!;
    expect(http.readOnly({ url: "https://api.example" })).toBe(true);
    expect(http.readOnly({ method: "GET" })).toBe(true);
    expect(http.readOnly({ method: "head" })).toBe(true);
    expect(http.readOnly({ method: "POST" })).toBe(false);
    expect(http.readOnly({ method: "DELETE" })).toBe(false);
  });

  it("publishes built-in schemas without $schema", () => {
    for (const t of toolsForAgent(
      config({ builtins: { http_request: { allowed_origins: ["https://api.example"] } } }),
      "default",
    )) {
      expect(t.parameters).not.toHaveProperty("$schema");
    }
  });
});

describe("schemaProblems", () => {
  const searchTool: CatalogTool = {
    name: "search",
    kind: "http_tool",
    description: "",
    parameters: {
      type: "object",
      properties: {
        q: { type: "string" },
        filters: { type: "object", properties: { limit: { type: "integer", minimum: 1 } } },
      },
      required: ["q"],
    },
    readOnly: () => true,
  };

  it("finds no problem in valid arguments", () => {
    expect(schemaProblems(searchTool, { q: "x", filters: { limit: 3 } }, new PatternMeter())).toEqual([]);
  });

  it("writes problems as '<json pointer> <violation>'", () => {
    const problems = schemaProblems(searchTool, { q: 5 }, new PatternMeter());
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/^\/q \S/);
  });

  it("puts the deepest location first", () => {
    const problems = schemaProblems(searchTool, { q: "x", filters: { limit: 0 } }, new PatternMeter());
    expect(problems[0]).toMatch(/^\/filters\/limit \S/);
  });

  it("reports a missing required property", () => {
    const problems = schemaProblems(searchTool, {}, new PatternMeter());
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toContain("q");
  });

  it("validates the built-in wait schema", () => {
    const wait = toolsForAgent(config(), "default").find((t) => t.name === "wait")!;
    expect(schemaProblems(wait, { seconds: 2 }, new PatternMeter())).toEqual([]);
    expect(schemaProblems(wait, { seconds: 0 }, new PatternMeter())[0]).toMatch(/^\/seconds \S/);
    expect(schemaProblems(wait, { seconds: "2" }, new PatternMeter())[0]).toMatch(/^\/seconds \S/);
    expect(schemaProblems(wait, {}, new PatternMeter()).length).toBeGreaterThan(0);
  });
});

describe("defaultJobTimeout", () => {
  const limits = configSchema.parse({}).limits;
  const t = (timeoutSeconds?: number): CatalogTool => ({
    name: "x",
    kind: "http_tool",
    description: "",
    parameters: {},
    timeoutSeconds,
    readOnly: () => false,
  });

  it("uses the tool's timeout_seconds", () => {
    expect(defaultJobTimeout(t(60), limits)).toBe(60);
  });

  it("falls back to tool_job_timeout_seconds", () => {
    expect(defaultJobTimeout(t(), limits)).toBe(600);
  });

  it("never exceeds max_job_timeout_seconds", () => {
    expect(defaultJobTimeout(t(5000), limits)).toBe(3600);
    expect(defaultJobTimeout(t(), { ...limits, max_job_timeout_seconds: 300 })).toBe(300);
  });
});
